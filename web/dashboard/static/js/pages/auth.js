// Sign-in, sign-up and the pages platform mail links to.
import { html, useState, useEffect } from '../lib.js';
import { post } from '../api.js';
import { Field, FormError, Link, navigate } from '../ui.js';

// howToGetAnAccount says, under the login form, how someone without an
// account gets one on this server.
function howToGetAnAccount(config) {
  if (config.signupsEnabled !== false) return html`No account yet? <${Link} href="/app/signup">Sign up<//>.`;
  if (config.signupMode === 'closed') {
    return html`No account yet? Sign-up is closed on this server: ask its operator to create your account.`;
  }
  return html`No account yet? Sign-up on this server is by invitation: ask an administrator of a project here to invite your email address, then follow the link in the invitation.`;
}

export function AuthPage({ config, onSignedIn }) {
  const signup = location.pathname === '/app/signup';
  const inviteToken = signup ? new URLSearchParams(location.search).get('inviteToken') || '' : '';
  const [form, setForm] = useState({ email: '', password: '' });
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const signupsOn = config.signupsEnabled !== false;
  // Closed: no invitation in the link, and the server takes no other
  // sign-up now (it answers 403 SIGNUPS_DISABLED anyway).
  const closed = signup && !inviteToken && !signupsOn;
  const title = closed ? 'Sign-up is closed' : inviteToken ? 'Accept your invitation' : signup ? 'Create your account' : 'Log in';
  useEffect(() => { document.title = title + ' · Herald'; }, [title]);

  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = { email: form.email.trim(), password: form.password };
      if (inviteToken) body.inviteToken = inviteToken;
      await post(signup ? '/auth/signup' : '/auth/login', body);
      onSignedIn();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const set = (k) => (e) => setForm({ ...form, [k]: e.target.value });
  const errs = error ? error.fields : {};
  if (closed) {
    return html`<div class="center"><div class="card auth">
      <div class="brand">Herald</div>
      <h1 id="page-title" tabindex="-1">${title}</h1>
      <p role="alert">This server does not take new sign-ups. ${howToGetAnAccount(config)}</p>
      <p><${Link} href="/app/login">Log in<//> if you have an account.</p>
    </div></div>`;
  }
  return html`<div class="center">
    <form class="card auth" onSubmit=${submit} novalidate>
      <div class="brand">Herald</div>
      <h1 id="page-title" tabindex="-1">${title}</h1>
      ${inviteToken ? html`<p class="muted">You were invited to a project on this server. Sign up with the email address the invitation was sent to.</p>` : null}
      <${Field} label="Email" name="email" type="email" autocomplete="username" required value=${form.email} onInput=${set('email')} errors=${errs} />
      <${Field} label="Password" name="password" type="password" autocomplete=${signup ? 'new-password' : 'current-password'} required minlength=${signup ? 8 : undefined}
        value=${form.password} onInput=${set('password')} errors=${errs} hint=${signup ? 'At least 8 characters.' : undefined} />
      <${FormError} error=${error} shown=${['email', 'password']} />
      <button type="submit" class="primary" disabled=${busy}>${signup ? 'Sign up' : 'Log in'}</button>
      <p class="muted">
        ${signup
          ? html`Have an account? <${Link} href="/app/login">Log in<//>`
          : html`${howToGetAnAccount(config)} <${Link} href="/app/forgot-password">Forgot your password?<//>`}
      </p>
      ${inviteToken ? null : html`<details class="hint-box" open>
        <summary>First start?</summary>
        <p>The first user made on this server is its administrator. Create it on the server${signupsOn && config.signupMode === 'first' ? ' (or sign up here)' : ''}:</p>
        <pre><code>herald user create --email you@example.com --password-stdin</code></pre>
        <p class="muted">Then log in here with that email and password.</p>
      </details>`}
    </form>
  </div>`;
}

function TokenPage({ title, children }) {
  useEffect(() => { document.title = title + ' · Herald'; }, [title]);
  return html`<div class="center"><div class="card auth">
    <div class="brand">Herald</div>
    <h1 id="page-title" tabindex="-1">${title}</h1>
    ${children}
  </div></div>`;
}

const tokenParam = () => new URLSearchParams(location.search).get('token') || '';

export function VerifyEmailPage() {
  const [state, setState] = useState({ done: false, error: null });
  useEffect(() => {
    post('/auth/verify-email', { token: tokenParam() }).then(
      () => setState({ done: true, error: null }),
      (error) => setState({ done: false, error }),
    );
  }, []);
  return html`<${TokenPage} title="Verify your email">
    ${state.done ? html`<p role="status">Your email is verified.</p>` : null}
    ${state.error ? html`<div class="alert error" role="alert">${state.error.message}</div>` : null}
    ${!state.done && !state.error ? html`<p>Verifying…</p>` : null}
    <p><${Link} href="/app/">Open the dashboard<//></p>
  <//>`;
}

// useSubmit runs a form's one request: the form's error while it fails,
// done once it succeeds.
function useSubmit(request) {
  const [error, setError] = useState(null);
  const [done, setDone] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      await request();
      setDone(true);
    } catch (err) {
      setError(err);
    }
  };
  return { error, done, submit };
}

export function ResetPasswordPage() {
  const [pw, setPw] = useState('');
  const { error, done, submit } = useSubmit(() => post('/auth/reset-password', { token: tokenParam(), newPassword: pw }));
  return html`<${TokenPage} title="Choose a new password">
    ${done
      ? html`<p role="status">Your password is changed. <${Link} href="/app/login">Log in<//></p>`
      : html`<form onSubmit=${submit}>
          <${Field} label="New password" name="newPassword" type="password" autocomplete="new-password" value=${pw} onInput=${(e) => setPw(e.target.value)} errors=${error && error.fields} hint="At least 8 characters." />
          <${FormError} error=${error} shown=${['newPassword']} />
          <button type="submit" class="primary">Set password</button>
        </form>`}
  <//>`;
}

export function ForgotPasswordPage({ config }) {
  const [email, setEmail] = useState('');
  const { error, done, submit } = useSubmit(() => post('/auth/request-password-reset', { email: email.trim() }));
  if (config.systemMail === false) {
    // No platform mail: no link can reach anyone, so promise none.
    return html`<${TokenPage} title="Reset your password">
      <p role="note">This server sends no email, so it cannot send you a link to reset your password.
        Ask its administrator to set a new one for you (on the server: <code>herald user reset-password --email you@example.com</code>).</p>
      <p><${Link} href="/app/login">Back to log in<//></p>
    <//>`;
  }
  return html`<${TokenPage} title="Reset your password">
    ${done
      ? html`<p role="status">If an account has that email, a link to reset its password is on its way.</p>`
      : html`<form onSubmit=${submit}>
          <${Field} label="Email" name="email" type="email" autocomplete="username" value=${email} onInput=${(e) => setEmail(e.target.value)} errors=${error && error.fields} />
          <${FormError} error=${error} shown=${['email']} />
          <button type="submit" class="primary">Send the link</button>
        </form>`}
    <p><${Link} href="/app/login">Back to log in<//></p>
  <//>`;
}

export function VerifyPendingPage({ user, onSignOut }) {
  const [sent, setSent] = useState(false);
  const [error, setError] = useState(null);
  const resend = async () => {
    try { await post('/auth/request-verification'); setSent(true); } catch (e) { setError(e); }
  };
  const logout = async () => { try { await post('/auth/logout'); } finally { onSignOut(); navigate('/app/login'); } };
  return html`<${TokenPage} title="Check your inbox">
    <p>We sent a link to <strong>${user.email}</strong>. Open it to verify your email, then come back.</p>
    ${sent ? html`<p role="status">Sent again.</p>` : null}
    ${error ? html`<div class="alert error" role="alert">${error.message}</div>` : null}
    <button type="button" onClick=${resend}>Send the link again</button>
    <button type="button" onClick=${logout}>Log out</button>
  <//>`;
}
