import { useId, useState } from 'preact/hooks';
import { useApp } from '../context.js';

/**
 * A secret the API shows once (an API token, a webhook's secret, a calendar address): in a field to
 * select, a button to copy it, and why it must be copied now. `copiedText` says it was copied.
 */
export function ShownOnce({ label, warning, value, copiedText }: { label: string; warning: string; value: string; copiedText?: string }) {
  const { words } = useApp();
  const id = useId();
  const [copied, setCopied] = useState(false);
  return (
    // The warning is said aloud; the secret never sits in a live region, so no screen reader reads it out.
    <div class="shown-once">
      <p class="notice" role="status">
        {warning}
      </p>
      <label for={id}>{label}</label>
      <div class="actions">
        <input id={id} class="secret" readOnly value={value} onFocus={(e) => (e.target as HTMLInputElement).select()} />
        <button
          type="button"
          onClick={() =>
            void navigator.clipboard
              ?.writeText(value)
              .then(() => setCopied(true))
              .catch(() => undefined)
          }
        >
          {words.copy}
        </button>
        <span class="success" role="status">
          {copied ? (copiedText ?? words.copied) : ''}
        </span>
      </div>
    </div>
  );
}
