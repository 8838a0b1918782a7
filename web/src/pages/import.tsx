import { useState } from 'preact/hooks';
import { covers } from '../access.js';
import { FormErrors, validationErrors, type FieldErrors } from '../components/field.js';
import { profileLabel } from '../components/person-fields.js';
import { useApp } from '../context.js';
import { translateApiMessages } from '../i18n/api-messages.js';
import { roleTypeLabel } from '../i18n/index.js';
import { client, troubleOf } from '../session.js';

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** What the import answers with `details=true` (the dry run's table). */
interface ImportAnswer {
  created: number;
  updated: number;
  unchanged: number;
  ignored_columns?: string[];
  columns?: { header: string; field: string | null }[];
  rows?: { row: number; action: 'created' | 'updated' | 'unchanged'; person_id: number | null; changes: Record<string, [unknown, unknown]> }[];
}

/** The file as the import takes it: an XLSX workbook by its type or name, anything else as CSV text (its charset found by the service). */
const contentTypeOf = (file: File): string => (file.type === XLSX_TYPE || /\.xlsx$/i.test(file.name) ? XLSX_TYPE : 'text/csv');

/**
 * Importing people into a group from a spreadsheet: the file and the role, then the dry run as a
 * table (what each row would do, every row's errors), then the import itself, the same file again.
 * Nothing is written until the reader has seen the dry run and pressed Import.
 */
export function ImportPage({ groupId }: { groupId: number }) {
  const app = useApp();
  const { words, language, session } = app;
  const group = session.access.groups.get(groupId);
  const grantable = session.roleTypes.filter((role) => covers(session.access.permissionOn(groupId), role.permission));
  const [file, setFile] = useState<File | null>(null);
  const [role, setRole] = useState(grantable.find((r) => r.key === 'member')?.key ?? '');
  const [ignoreUnknown, setIgnoreUnknown] = useState(false);
  const [checked, setChecked] = useState<ImportAnswer | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);
  if (!group || !session.access.atLeast(groupId, 'write')) return <p class="card">{words.nothing}</p>;

  const send = async (dryRun: boolean): Promise<ImportAnswer | null> => {
    if (!file) return null;
    const query = { group_id: groupId, role_type: role, ...(dryRun ? { dry_run: true, details: true } : {}), ...(ignoreUnknown ? { ignore_unknown: true } : {}) };
    const result = await client.api.POST('/people/import', {
      params: { query: query as never },
      body: file as never,
      bodySerializer: (body: unknown) => body as BodyInit,
      headers: { 'Content-Type': contentTypeOf(file) },
    });
    if (result.data) return result.data.data as ImportAnswer;
    const refused = validationErrors(result.response, result.error);
    if (refused) setErrors(refused);
    else app.report(troubleOf(result.response, result.error));
    return null;
  };
  const check = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setErrors({});
    setChecked(null);
    try {
      setChecked(await send(true));
    } finally {
      setBusy(false);
    }
  };
  const run = async () => {
    setBusy(true);
    try {
      const done = await send(false);
      if (done) app.announce(words.imported(done.created, done.updated, done.unchanged), `groups/${groupId}`);
      else setChecked(null);
    } finally {
      setBusy(false);
    }
  };
  // A file's columns are the profile's fields (and the username, which the import compares only).
  const fieldName = (field: string) => profileLabel(field, words) ?? (field === 'username' ? words.username : field);
  const shown = (value: unknown) => (value === null || value === undefined || value === '' ? '–' : value === true ? words.yes : value === false ? words.no : String(value));
  const rowErrors = Object.entries(errors).filter(([key]) => key.startsWith('row '));

  return (
    <>
      <form class="card" onSubmit={check} aria-labelledby="import-title">
        <p class="muted">
          <a href={`#/groups/${groupId}`}>{group.name}</a>
        </p>
        <h1 id="import-title" tabIndex={-1}>
          {words.importInto(group.name)}
        </h1>
        <p class="muted">{words.importHint}</p>
        <FormErrors errors={errors} shown={rowErrors.map(([key]) => key)} />
        <label>
          {words.importFile}
          <input
            type="file"
            name="file"
            required
            accept={`.csv,.txt,.xlsx,text/csv,${XLSX_TYPE}`}
            onChange={(e) => {
              setFile((e.target as HTMLInputElement).files?.[0] ?? null);
              setChecked(null);
              setErrors({});
            }}
          />
        </label>
        <label>
          {words.role}
          <select name="role_type" required value={role} onChange={(e) => { setRole((e.target as HTMLSelectElement).value); setChecked(null); }}>
            <option value="">{words.chooseRole}</option>
            {grantable.map((r) => (
              <option value={r.key}>{roleTypeLabel(r, language)}</option>
            ))}
          </select>
        </label>
        <label class="check">
          <input type="checkbox" name="ignore_unknown" checked={ignoreUnknown} onChange={(e) => { setIgnoreUnknown((e.target as HTMLInputElement).checked); setChecked(null); }} />
          {words.ignoreUnknownColumns}
        </label>
        <div class="actions">
          <button type="submit" disabled={busy || !file || !role}>
            {words.checkFile}
          </button>
        </div>
      </form>
      {rowErrors.length > 0 && (
        <section class="card" aria-labelledby="row-errors-title">
          <h2 id="row-errors-title">{words.rowErrors(rowErrors.length)}</h2>
          <p class="muted">{words.rowErrorsHint}</p>
          <div role="alert">
            <ul class="list error">
              {rowErrors.map(([key, messages]) => (
                <li key={key}>
                  {words.rowNumber(Number(key.slice(4)))}: {translateApiMessages(messages, language)}
                </li>
              ))}
            </ul>
          </div>
        </section>
      )}
      {checked && (
        <section class="card" aria-labelledby="dry-run-title">
          <h2 id="dry-run-title">{words.dryRun}</h2>
          <p role="status">{words.wouldImport(checked.created, checked.updated, checked.unchanged)}</p>
          {(checked.ignored_columns ?? []).length > 0 && <p class="muted">{words.ignoredColumns(checked.ignored_columns!.join(', '))}</p>}
          {checked.columns && (
            <details>
              <summary>{words.columnsRead}</summary>
              <ul class="list">
                {checked.columns.map((column) => (
                  <li key={column.header}>
                    {column.header} → {column.field === null ? words.columnIgnored : fieldName(column.field)}
                  </li>
                ))}
              </ul>
            </details>
          )}
          {checked.rows && checked.rows.length > 0 && (
            <div class="table-scroll" tabIndex={0} role="region" aria-labelledby="dry-run-title">
              <table class="table">
                <thead>
                  <tr>
                    <th scope="col">{words.rowTitle}</th>
                    <th scope="col">{words.rowAction}</th>
                    <th scope="col">{words.rowChanges}</th>
                  </tr>
                </thead>
                <tbody>
                  {checked.rows.map((row) => (
                    <tr key={row.row}>
                      <td>{row.row}</td>
                      <td>
                        {row.person_id !== null ? <a href={`#/people/${row.person_id}`}>{words.importAction(row.action)}</a> : words.importAction(row.action)}
                      </td>
                      <td>
                        {Object.entries(row.changes)
                          .map(([field, [before, after]]) => (row.action === 'created' ? `${fieldName(field)}: ${shown(after)}` : `${fieldName(field)}: ${shown(before)} → ${shown(after)}`))
                          .join('; ')}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <div class="actions">
            <button type="button" disabled={busy} onClick={() => void run()}>
              {words.importNow(checked.created + checked.updated + checked.unchanged)}
            </button>
          </div>
        </section>
      )}
    </>
  );
}
