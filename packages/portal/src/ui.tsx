/**
 * The portal's building blocks: a load hook with loading, error and data states, and the pieces
 * every screen shares (notices, fields that show the error the server named, buttons that say
 * when they are busy, a copy button). Class names are the style sheet's (portal.css); no inline
 * styles, so the page runs under a CSP without 'unsafe-inline'.
 */
import type { ButtonHTMLAttributes, ComponentChildren } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.ts';

export type Loaded<T> = { state: 'loading' } | { state: 'error'; error: ApiError } | { state: 'ready'; data: T };

/** Runs `load` now and whenever `reload` is called or `keys` change; a stale answer is dropped. */
export function useLoad<T>(load: () => Promise<T>, keys: unknown[] = []): [Loaded<T>, () => void] {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setLoaded((previous) => (previous.state === 'ready' ? previous : { state: 'loading' }));
    load().then(
      (data) => current && setLoaded({ state: 'ready', data }),
      (error: unknown) => current && setLoaded({ state: 'error', error: asApiError(error) }),
    );
    return () => {
      current = false;
    };
    // `keys` (not `load`, a new closure every render) says when to load again.
  }, [round, ...keys]);
  return [loaded, useCallback(() => setRound((r) => r + 1), [])];
}

export function asApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError(0, { title: 'Something went wrong', detail: String(error) });
}

/** Renders the three states of a load: a spinner line, the error with a retry, or `children(data)`. */
export function Load<T>({ loaded, retry, children }: { loaded: Loaded<T>; retry: () => void; children: (data: T) => ComponentChildren }) {
  if (loaded.state === 'loading') return <Loading />;
  if (loaded.state === 'error') return <ErrorNotice error={loaded.error} retry={retry} />;
  return <>{children(loaded.data)}</>;
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p class="loading" role="status">
      <span class="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

export function ErrorNotice({ error, retry }: { error: ApiError; retry?: () => void }) {
  // Any operation answers 401 once the portal session expired or sat idle too long.
  if (error.status === 401)
    return (
      <div class="notice notice-error" role="alert">
        <p class="notice-title">Your portal session has ended</p>
        <p>Portal sessions end after 15 minutes without use and 4 hours at most. Ask your administrator for a new portal link.</p>
      </div>
    );
  return (
    <div class="notice notice-error" role="alert">
      <p class="notice-title">{error.problem.title ?? 'Something went wrong'}</p>
      {error.problem.detail && error.problem.detail !== error.problem.title ? <p>{error.problem.detail}</p> : null}
      {retry ? (
        <button type="button" class="button button-secondary" onClick={retry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

export function Notice({
  kind = 'info',
  title,
  children,
}: {
  kind?: 'info' | 'success' | 'warning';
  title: string;
  children?: ComponentChildren;
}) {
  return (
    <div class={`notice notice-${kind}`} role="status">
      <p class="notice-title">{title}</p>
      {children}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{title}</p>
      {children}
    </div>
  );
}

interface FieldProps {
  label: string;
  name: string;
  value: string;
  onValue: (value: string) => void;
  hint?: string;
  error?: string | undefined;
  type?: 'text' | 'url' | 'email' | 'password' | 'datetime-local';
  required?: boolean;
  autoComplete?: string;
  /** A text area of this many rows (metadata XML, a certificate) instead of a one-line input. */
  rows?: number;
}

/** A labelled input whose error (from the server's `errors`, by field) is announced and linked to it. */
export function Field({ label, hint, error, onValue, type = 'text', rows, ...input }: FieldProps) {
  const id = useId();
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class={error ? 'field field-invalid' : 'field'}>
      <label for={id}>{label}</label>
      {hint ? (
        <p class="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      {rows ? (
        <textarea
          id={id}
          rows={rows}
          spellcheck={false}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={described}
          onInput={(event) => onValue(event.currentTarget.value)}
          {...input}
        />
      ) : (
        <input
          id={id}
          // Preact types each input `type` apart; a union of several does not narrow to one of them.
          type={type as 'text'}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={described}
          onInput={(event) => onValue(event.currentTarget.value)}
          {...input}
        />
      )}
      {error ? (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A set of radio buttons for one choice, as a fieldset with its legend. */
export function Choice<T extends string>({
  legend,
  name,
  value,
  options,
  onChange,
}: {
  legend: string;
  name: string;
  value: T;
  options: { value: T; label: string; hint?: string }[];
  onChange: (value: T) => void;
}) {
  return (
    <fieldset class="choice">
      <legend>{legend}</legend>
      {options.map((option) => (
        <label class="check" key={option.value}>
          <input type="radio" name={name} value={option.value} checked={value === option.value} onChange={() => onChange(option.value)} />
          <span>
            {option.label}
            {option.hint ? <span class="muted"> — {option.hint}</span> : null}
          </span>
        </label>
      ))}
    </fieldset>
  );
}

export function Button({
  busy,
  kind = 'primary',
  children,
  ...button
}: ButtonHTMLAttributes<HTMLButtonElement> & { busy?: boolean; kind?: 'primary' | 'secondary' | 'danger' }) {
  return (
    <button
      type="button"
      class={`button button-${kind}`}
      disabled={busy || Boolean(button.disabled)}
      aria-busy={busy ? 'true' : undefined}
      {...button}
    >
      {busy ? <span class="spinner" aria-hidden="true" /> : null}
      {children}
    </button>
  );
}

/** A value shown once (a secret, a token) with a button that copies it. */
export function Secret({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
      clearTimeout(timer.current);
      timer.current = setTimeout(() => setCopied(false), 2000);
    } catch {
      setCopied(false);
    }
  };
  return (
    <div class="secret">
      <span class="secret-label">{label}</span>
      <code class="secret-value">{value}</code>
      <button type="button" class="button button-secondary" onClick={copy}>
        {copied ? 'Copied' : 'Copy'}
      </button>
      <span class="visually-hidden" aria-live="polite">
        {copied ? `${label} copied` : ''}
      </span>
    </div>
  );
}

const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function Time({ value, empty = 'never' }: { value: string | null | undefined; empty?: string }) {
  if (!value) return <span class="muted">{empty}</span>;
  return <time dateTime={value}>{DATE_TIME.format(new Date(value))}</time>;
}

export function Badge({ tone, children }: { tone: 'good' | 'bad' | 'warn' | 'neutral'; children: ComponentChildren }) {
  return <span class={`badge badge-${tone}`}>{children}</span>;
}
