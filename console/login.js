// Log an account in from the page, through whatever the platform asks on the way: a two-factor
// code, or a challenge whose code the platform sent. The password lives in this component's
// memory only until the login ends; the codes are sent once and forgotten.
import { useRef, useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { api, ApiError } from './api.js';

const START = { step: 'credentials', problem: '', lastJson: null, account: '', sessionId: '' };

export function LoginView({ say }) {
  const [flow, setFlow] = useState(START);
  const [busy, setBusy] = useState(false);
  const credentials = useRef(null); // { username, password, proxy, locale }: kept between the steps only

  const login = async (code) => {
    const { username, password, proxy, locale } = credentials.current;
    const fields = { username, password };
    if (code) fields.verification_code = code;
    if (proxy) fields.proxy = proxy;
    if (locale) fields.locale = locale;
    try {
      const sessionId = await api('POST', '/auth/login', fields);
      credentials.current = null;
      setFlow({ ...START, step: 'done', account: username, sessionId });
      say(`${username} is logged in.`);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.excType === 'TwoFactorRequired') return setFlow({ ...START, step: 'two_factor', account: username, problem: code ? error.message : '' });
      if (error.excType === 'ChallengeRequired') return setFlow({ ...START, step: 'challenge', account: username, lastJson: error.body.last_json ?? {} });
      setFlow((f) => ({ ...f, problem: error.message }));
    }
  };

  const run = (step) => async (event) => {
    event.preventDefault();
    const form = Object.fromEntries(new FormData(event.target));
    setBusy(true);
    try {
      await step(form);
    } catch (error) {
      setFlow((f) => ({ ...f, problem: error.message }));
    } finally {
      setBusy(false);
    }
  };

  const start = run(async (form) => {
    credentials.current = { username: form.username.trim(), password: form.password, proxy: form.proxy.trim(), locale: form.locale.trim() };
    await login('');
  });
  const twoFactor = run(async (form) => login(form.code.trim()));
  const challenge = run(async (form) => {
    try {
      await api('POST', '/auth/challenge/resolve', { last_json: JSON.stringify(flow.lastJson), security_code: form.code.trim() });
    } catch (error) {
      if (error instanceof ApiError && error.excType === 'ChallengeRequired')
        return setFlow((f) => ({ ...f, lastJson: error.body.last_json ?? f.lastJson, problem: error.message }));
      throw error;
    }
    await login('');
  });
  const cancel = () => {
    credentials.current = null;
    setFlow(START);
  };

  const problem = flow.problem && html`<p class="problem" role="alert">${flow.problem}</p>`;
  if (flow.step === 'done') {
    return html`<section key="done" class="card narrow" aria-labelledby="login-done">
      <h2 id="login-done">${flow.account} is logged in</h2>
      <p>The session is in the <a href="#sessions">list</a>. Programs use it with its session ID:</p>
      <details><summary>Show the session ID</summary><p><code class="secret">${flow.sessionId}</code></p>
        <p class="muted">Treat it like a password: whoever holds it acts as the account.</p></details>
      <button type="button" onClick=${cancel}>Log in another account</button>
    </section>`;
  }
  if (flow.step === 'two_factor' || flow.step === 'challenge') {
    const twoFactorStep = flow.step === 'two_factor';
    // Keyed by step: each step gets fresh fields, so nothing typed in one (the password) shows in the next.
    return html`<form key=${flow.step} class="card narrow" onSubmit=${twoFactorStep ? twoFactor : challenge} aria-labelledby="code-title">
      <h2 id="code-title">${twoFactorStep ? 'Two-factor code' : 'Challenge'} for ${flow.account}</h2>
      <p>${
        twoFactorStep
          ? 'Type the code from the authenticator app or the SMS.'
          : 'The platform wants to confirm it is you: type the security code it sent (SMS or e-mail).'
      }</p>
      <label for="login-code">${twoFactorStep ? 'Two-factor code' : 'Security code'}</label>
      <input id="login-code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6,8}" required autofocus />
      ${problem}
      <div class="row"><button type="submit" disabled=${busy}>${twoFactorStep ? 'Log in' : 'Send the code'}</button>
        <button type="button" class="quiet" onClick=${cancel}>Cancel</button></div>
    </form>`;
  }
  return html`<form key="credentials" class="card narrow" onSubmit=${start} aria-labelledby="login-title">
    <h2 id="login-title">Account</h2>
    <label for="login-username">Username</label>
    <input id="login-username" name="username" autocomplete="username" required />
    <label for="login-password">Password</label>
    <input id="login-password" name="password" type="password" autocomplete="current-password" required />
    <details><summary>Proxy and locale</summary>
      <label for="login-proxy">Proxy URL (optional)</label>
      <input id="login-proxy" name="proxy" placeholder="http://user:pass@host:8080" />
      <label for="login-locale">Locale (optional)</label>
      <input id="login-locale" name="locale" placeholder="en_US" />
    </details>
    ${problem}
    <button type="submit" disabled=${busy}>Log in</button>
  </form>`;
}
