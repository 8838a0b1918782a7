import { useLoad } from '../hooks.js';
import { client } from '../session.js';

/** An event's name, as a link (participations name only the event's id). */
export function EventLink({ id }: { id: number }) {
  const [name] = useLoad(async () => (await client.events.get(id)).data?.data.event.name ?? null, [id]);
  return <a href={`#/events/${id}`}>{name ?? `#${id}`}</a>;
}
