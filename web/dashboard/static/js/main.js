// The dashboard's shell: session and project state, the router, and the
// navigation. Pages live in pages/; each gets the current project as ctx.
import { html, render, useState, useEffect } from './lib.js';
import { get, post, setProject, onUnauthorized } from './api.js';
import { Link, navigate, Loading } from './ui.js';
import { AuthPage, VerifyEmailPage, ResetPasswordPage, ForgotPasswordPage, VerifyPendingPage } from './pages/auth.js';
import { NewProjectPage } from './pages/projects.js';
import { OverviewPage } from './pages/overview.js';
import { DomainsPage } from './pages/domains.js';
import { ContactsPage, ContactPage, ImportPage } from './pages/contacts.js';
import { TemplatesPage, TemplatePage } from './pages/templates.js';
import { SegmentsPage, SegmentPage } from './pages/segments.js';
import { CampaignsPage, CampaignPage } from './pages/campaigns.js';
import { ActivityPage, AnalyticsPage } from './pages/activity.js';
import { SettingsPage } from './pages/settings.js';
import { WorkflowsPage, WorkflowPage } from './pages/workflows.js';
import { SandboxPage, SandboxMessagePage } from './pages/sandbox.js';

const SIGNED_IN = 'herald.signedIn';
const PROJECT = 'herald.project';

// routes: first match wins; :name captures one path segment.
const routes = [
  ['/app/', OverviewPage],
  ['/app/contacts', ContactsPage],
  ['/app/contacts/import', ImportPage],
  ['/app/contacts/:id', ContactPage],
  ['/app/templates', TemplatesPage],
  ['/app/templates/:id', TemplatePage],
  ['/app/segments', SegmentsPage],
  ['/app/segments/:id', SegmentPage],
  ['/app/campaigns', CampaignsPage],
  ['/app/campaigns/:id', CampaignPage],
  ['/app/workflows', WorkflowsPage], ['/app/workflows/:id', WorkflowPage],
  ['/app/domains', DomainsPage],
  ['/app/activity', ActivityPage],
  ['/app/analytics', AnalyticsPage],
  ['/app/settings', SettingsPage],
  ['/app/projects/new', NewProjectPage],
  ['/app/sandbox', SandboxPage], ['/app/sandbox/:id', SandboxMessagePage],
];

// Pages a visitor without a session may open (links in platform mail).
const publicRoutes = {
  '/app/login': AuthPage,
  '/app/signup': AuthPage,
  '/app/verify-email': VerifyEmailPage,
  '/app/reset-password': ResetPasswordPage,
  '/app/forgot-password': ForgotPasswordPage,
};

function match(path) {
  const parts = path.replace(/\/+$/, '').split('/');
  for (const [pattern, page] of routes) {
    const pp = pattern.replace(/\/+$/, '').split('/');
    if (pp.length !== parts.length) continue;
    const params = {};
    if (pp.every((p, i) => (p.startsWith(':') ? ((params[p.slice(1)] = decodeURIComponent(parts[i])), true) : p === parts[i]))) {
      return { page, params };
    }
  }
  return null;
}

function useLocation() {
  const [loc, setLoc] = useState(location.pathname + location.search);
  useEffect(() => {
    const on = () => setLoc(location.pathname + location.search);
    addEventListener('popstate', on);
    addEventListener('herald:navigate', on);
    return () => { removeEventListener('popstate', on); removeEventListener('herald:navigate', on); };
  }, []);
  return loc;
}

const nav = [
  ['/app/', 'Overview'],
  ['/app/contacts', 'Contacts'],
  ['/app/templates', 'Templates'],
  ['/app/campaigns', 'Campaigns'],
  ['/app/segments', 'Segments'],
  ['/app/workflows', 'Workflows'],
  ['/app/domains', 'Domains'],
  ['/app/activity', 'Activity'],
  ['/app/analytics', 'Analytics'],
  ['/app/settings', 'Settings'],
];

// SandboxBanner says on every page that the server is a sandbox.
function SandboxBanner({ config, signedIn }) {
  if (!config.sandbox) return null;
  return html`<div class="banner sandbox-banner" role="note" aria-label="Sandbox">
    <strong>Sandbox:</strong> no email leaves this machine. Every message is captured${signedIn
      ? html` on the <${Link} href="/app/sandbox">Sandbox<//> page` : ' in the dashboard'}, and sender domains are verified without DNS.
  </div>`;
}

// AdminWarnings is the installation's warnings, shown to its
// administrator only (GET /users/@me gives them no one else).
function AdminWarnings({ user }) {
  const w = (user && user.warnings) || [];
  if (!w.length) return null;
  return html`<details class="banner admin-warnings">
    <summary>This installation has ${w.length} warning${w.length === 1 ? '' : 's'} for you, its administrator</summary>
    <ul>${w.map((x) => html`<li>${x}</li>`)}</ul>
  </details>`;
}

function App() {
  const loc = useLocation();
  const path = location.pathname;
  const [state, setState] = useState({ phase: 'boot' });
  const [config, setConfig] = useState({});

  const signOut = () => {
    localStorage.removeItem(SIGNED_IN);
    setProject('');
    setState({ phase: 'anon' });
  };

  // load reads the user and their projects, choosing the remembered one.
  const load = async (prefer) => {
    try {
      const user = await get('/users/@me');
      let projects;
      try {
        projects = await get('/users/@me/projects');
      } catch (e) {
        if (e.code === 'EMAIL_NOT_VERIFIED') return setState({ phase: 'unverified', user });
        throw e;
      }
      const id = prefer || localStorage.getItem(PROJECT);
      const project = projects.find((p) => p.id === id) || projects[0] || null;
      if (project) localStorage.setItem(PROJECT, project.id);
      setProject(project ? project.id : '');
      setState({ phase: 'in', user, projects, project });
    } catch (e) {
      if (e.status === 401) return signOut();
      setState({ phase: 'error', error: e });
    }
  };

  useEffect(() => {
    onUnauthorized(signOut);
    get('/config').then(setConfig, () => {});
    if (localStorage.getItem(SIGNED_IN)) load();
    else setState({ phase: 'anon' });
  }, []);

  // Focus the page's heading after a navigation, for keyboard and screen
  // reader users; the first load keeps the browser's focus.
  const [first, setFirst] = useState(true);
  useEffect(() => {
    if (first) return setFirst(false);
    // Someone already typing in the new page keeps their place.
    const main = document.querySelector('main');
    if (main && main.contains(document.activeElement)) return;
    const h = document.getElementById('page-title');
    if (h) h.focus({ preventScroll: false });
  }, [loc]);

  const signedIn = () => {
    localStorage.setItem(SIGNED_IN, '1');
    load().then(() => {
      if (publicRoutes[location.pathname]) navigate('/app/', true);
    });
  };

  if (state.phase === 'boot') return html`<${Loading} />`;

  const banner = html`<${SandboxBanner} config=${config} signedIn=${state.phase === 'in'} />`;
  const Public = publicRoutes[path];
  if (state.phase === 'anon' || (Public && Public !== AuthPage)) {
    if (Public) return html`${banner}<${Public} key=${path} config=${config} onSignedIn=${signedIn} />`;
    if (path !== '/app/login') navigate('/app/login', true);
    return html`${banner}<${AuthPage} config=${config} onSignedIn=${signedIn} />`;
  }
  if (state.phase === 'unverified') return html`${banner}<${VerifyPendingPage} user=${state.user} onSignOut=${signOut} />`;
  if (state.phase === 'error') return html`${banner}<div class="center"><div class="alert error">${state.error.message}</div></div>`;

  const { user, projects, project } = state;
  const logout = async () => {
    try { await post('/auth/logout'); } finally { signOut(); navigate('/app/login'); }
  };
  const chooseProject = (id) => {
    if (id === '__new') return navigate('/app/projects/new');
    localStorage.setItem(PROJECT, id);
    load(id);
  };
  const ctx = {
    user, project, projects, config,
    role: project ? project.role : null,
    canAdmin: project && (project.role === 'OWNER' || project.role === 'ADMIN'),
    reload: (prefer) => load(prefer),
  };

  if (!project || path === '/app/projects/new') {
    return html`${banner}<${AdminWarnings} user=${user} /><div class="center"><${NewProjectPage} ctx=${ctx} first=${!project} onLogout=${logout} /></div>`;
  }
  if (Public) navigate('/app/', true);
  const m = match(path);
  const Page = m ? m.page : NotFoundPage;
  return html`<div class="layout">
    <a class="skip" href="#main">Skip to content</a>
    <aside class="sidebar">
      <div class="brand">Herald</div>
      <div class="field project-picker">
        <label for="project-picker">Project</label>
        <select id="project-picker" value=${project.id} onChange=${(e) => chooseProject(e.target.value)}>
          ${projects.map((p) => html`<option value=${p.id}>${p.name}</option>`)}
          <option value="__new">+ New project…</option>
        </select>
      </div>
      <nav aria-label="Main">
        <ul>
          ${(config.sandbox ? [...nav, ['/app/sandbox', 'Sandbox']] : nav).map(([href, label]) => {
            const active = href === '/app/' ? path === '/app/' : path.startsWith(href);
            return html`<li><${Link} href=${href} aria-current=${active ? 'page' : undefined}>${label}<//></li>`;
          })}
        </ul>
      </nav>
      <div class="user">
        <span class="muted" title=${user.email}>${user.email}</span>
        <button type="button" class="small" onClick=${logout}>Log out</button>
      </div>
    </aside>
    <main id="main">
      ${banner}
      <${AdminWarnings} user=${user} />
      ${project.disabled ? html`<div class="alert error" role="alert">This project is disabled${project.disabledReason ? ` (${project.disabledReason})` : ''}: sending is stopped.</div>` : null}
      <${Page} key=${path} ctx=${ctx} params=${m ? m.params : {}} />
    </main>
  </div>`;
}

function NotFoundPage() {
  return html`<div><h1 id="page-title" tabindex="-1">Not found</h1><p>No page here. <${Link} href="/app/">Back to the overview<//></p></div>`;
}

render(html`<${App} />`, document.getElementById('root'));
