// Creating a project: the first step after sign-up, and from the picker.
import { html, useState } from '../lib.js';
import { post } from '../api.js';
import { Field, FormError, navigate, Link } from '../ui.js';

export function NewProjectPage({ ctx, first, onLogout }) {
  const [name, setName] = useState('');
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const p = await post('/users/@me/projects', { name: name.trim() });
      await ctx.reload(p.id);
      navigate('/app/');
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="card auth" onSubmit=${submit}>
    <div class="brand">Herald</div>
    <h1 id="page-title" tabindex="-1">${first ? 'Create your first project' : 'New project'}</h1>
    <p class="muted">A project holds contacts, templates, campaigns and its own API keys.</p>
    <${Field} label="Project name" name="name" value=${name} onInput=${(e) => setName(e.target.value)} errors=${error && error.fields} required maxlength="100" />
    <${FormError} error=${error} shown=${['name']} />
    <button type="submit" class="primary" disabled=${busy}>Create project</button>
    <p class="muted">Signed in as ${ctx.user.email}. ${first ? html`<button type="button" class="link" onClick=${onLogout}>Log out</button>` : html`<${Link} href="/app/">Cancel<//>`}</p>
  </form>`;
}
