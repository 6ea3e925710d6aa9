// Users and their keys (administrators; the API answers 403 to anyone else): create a user, give a
// key, delete a key or a user. A new key is shown once, in this page's memory only, until dismissed.
import { useState, type FormEvent } from "react";
import { createKey, createUser, deleteKey, deleteUser, listUsers, type UserView } from "../api/operations-api.js";
import { useResource } from "../api/use-resource.js";
import { ErrorNote } from "../components/error-note.js";
import { revealBidi } from "../text/reveal-bidi.js";
import { formatTime } from "./operations/format.js";
import type { PageProps } from "./page-list.js";
import "./operations/operations.css";

interface NewKey {
  readonly user: string;
  readonly keyId: string;
  readonly apiKey: string;
}

export function AdminPage(_props: PageProps) {
  const users = useResource((signal) => listUsers(signal));
  const [error, setError] = useState<unknown>();
  const [fresh, setFresh] = useState<NewKey>();
  const list = users.data?.users ?? [];
  const act = (work: () => Promise<void>) => {
    setError(undefined);
    work().then(users.reload, setError);
  };
  return (
    <section aria-labelledby="admin-title">
      <h1 id="admin-title">Users and keys</h1>
      <ErrorNote error={error ?? users.error} />
      {fresh && <KeyOnce fresh={fresh} onDone={() => setFresh(undefined)} />}
      <CreateUserForm
        onCreated={(created) => {
          setFresh(created);
          users.reload();
        }}
        onError={setError}
      />
      <h2>Users</h2>
      {users.data && list.length === 0 && <p className="empty">No users yet. Create one above; they sign in with the key shown once.</p>}
      <ul className="ops-list" aria-label="Users">
        {list.map((user) => (
          <li key={user.id}>
            <UserCard
              user={user}
              onNewKey={() => act(async () => {
                const added = await createKey(user.id);
                setFresh({ user: user.name, keyId: added.key_id, apiKey: added.api_key });
              })}
              onDeleteKey={(keyId) => act(() => deleteKey(user.id, keyId))}
              onDelete={() => act(() => deleteUser(user.id))}
            />
          </li>
        ))}
      </ul>
    </section>
  );
}

function KeyOnce({ fresh, onDone }: { readonly fresh: NewKey; readonly onDone: () => void }) {
  return (
    <div className="ops-secret-once" role="status">
      <p>
        New key for {revealBidi(fresh.user)} (id {fresh.keyId}). Copy it now: it is shown only this once.
      </p>
      <p>
        <code aria-label="New API key">{fresh.apiKey}</code>
      </p>
      <button type="button" className="secondary" onClick={onDone}>
        I have copied it
      </button>
    </div>
  );
}

function CreateUserForm({ onCreated, onError }: { readonly onCreated: (fresh: NewKey) => void; readonly onError: (error: unknown) => void }) {
  const [name, setName] = useState("");
  const [role, setRole] = useState<"user" | "admin">("user");
  const [busy, setBusy] = useState(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    onError(undefined);
    createUser(name.trim(), role).then(
      (created) => {
        setBusy(false);
        setName("");
        onCreated({ user: created.name, keyId: created.key_id, apiKey: created.api_key });
      },
      (failure: unknown) => {
        setBusy(false);
        onError(failure);
      },
    );
  };
  return (
    <section aria-labelledby="create-user-title">
      <h2 id="create-user-title">Create a user</h2>
      <form className="ops-form" onSubmit={submit}>
        <label htmlFor="user-name">Name</label>
        <input id="user-name" value={name} onChange={(event) => setName(event.target.value)} required maxLength={64} />
        <label htmlFor="user-role">Role</label>
        <select id="user-role" value={role} onChange={(event) => setRole(event.target.value === "admin" ? "admin" : "user")}>
          <option value="user">user: their own threads, skills, servers and memory</option>
          <option value="admin">admin: everything</option>
        </select>
        <div className="row">
          <button type="submit" disabled={busy || name.trim() === ""}>
            Create user
          </button>
        </div>
      </form>
    </section>
  );
}

function UserCard({ user, onNewKey, onDeleteKey, onDelete }: { readonly user: UserView; readonly onNewKey: () => void; readonly onDeleteKey: (keyId: string) => void; readonly onDelete: () => void }) {
  const [confirm, setConfirm] = useState(false);
  const name = revealBidi(user.name);
  const headingId = `user-${user.id}`;
  return (
    <article className="card" aria-labelledby={headingId}>
      <div className="ops-card-head">
        <h3 id={headingId}>{name}</h3>
        <span className="muted">
          {user.role} · {user.id} · since {formatTime(user.created_at)}
        </span>
      </div>
      {user.keys.length === 0 ? (
        <p className="muted">No keys: this user cannot sign in with a key until you make one.</p>
      ) : (
        <ul aria-label={`Keys of ${name}`}>
          {user.keys.map((key) => (
            <li key={key.id}>
              <code>{key.id}</code>
              {key.last4 && <span className="muted"> …{key.last4}</span>}
              <span className="muted"> made {formatTime(key.created_at)}</span>
              <button type="button" className="link" onClick={() => onDeleteKey(key.id)}>
                Revoke key {key.id}
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="ops-actions">
        <button type="button" className="secondary" onClick={onNewKey}>
          New key for {name}
        </button>
        {!confirm ? (
          <button type="button" className="danger" onClick={() => setConfirm(true)}>
            Delete {name}…
          </button>
        ) : (
          <>
            <button type="button" className="danger" onClick={onDelete}>
              Yes, delete {name} and everything theirs
            </button>
            <button type="button" className="secondary" onClick={() => setConfirm(false)}>
              Cancel
            </button>
          </>
        )}
      </div>
    </article>
  );
}
