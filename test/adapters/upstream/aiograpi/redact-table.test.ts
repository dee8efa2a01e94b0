// The sidecar's redactor as a table of cases, run in Python: credential-shaped text, the values it
// was handed (in their URL-encoded and decoded forms too), what a settings export contributes, and
// the stderr stand-in that redacts whole lines however the writes are split.
import { execFileSync } from 'node:child_process';
import t from 'tap';
import { fromRoot } from '../../../helpers/root.js';

const SIDECAR_DIR = fromRoot('adapters', 'upstream', 'aiograpi');

function python(script: string): Record<string, unknown> {
  const out = execFileSync('python3', ['-c', script], { env: { ...process.env, PYTHONPATH: SIDECAR_DIR, PYTHONDONTWRITEBYTECODE: '1' } });
  return JSON.parse(out.toString()) as Record<string, unknown>;
}

t.test('credential-shaped text is redacted whatever the library logged it as', async (t) => {
  const cases: [string, string][] = [
    ['password=hunter22&username=demo', 'password=[redacted]&username=demo'],
    ['{"enc_password": "#PWD_INSTAGRAM:0:1700000000:hunter22", "device_id": "x"}', '{"enc_password": "[redacted]", "device_id": "x"}'],
    ["{'sessionid': '5000000001%3Aabc%3A1', 'ds_user_id': '5000000001'}", "{'sessionid': '[redacted]', 'ds_user_id': '5000000001'}"],
    ['Cookie: sessionid=abc123; csrftoken=def456; ds_user_id=42', 'Cookie: [redacted]; csrftoken=[redacted]; ds_user_id=42'],
    [
      "[('Authorization', 'Bearer IGT:2:eyJkc191c2VyX2lkIjoiMSJ9'), ('X-IG-App-ID', '567')]",
      "[('Authorization', 'Bearer [redacted]'), ('X-IG-App-ID', '567')]",
    ],
    ['ig-set-authorization: Bearer IGT:2:abc=', 'ig-set-authorization: [redacted]'],
    ['https://i.instagram.com/api/v1/users/5000000001/info/ 200', 'https://i.instagram.com/api/v1/users/5000000001/info/ 200'],
    ['The password you entered is incorrect.', 'The password you entered is incorrect.'],
  ];
  const r = python(`
import json
from sidecar_redact import Secrets
cases = json.loads(${JSON.stringify(JSON.stringify(cases.map(([input]) => input)))})
print(json.dumps({"out": [Secrets().redact(c) for c in cases]}))`);
  for (const [i, [input, expected]] of cases.entries()) t.equal((r.out as string[])[i], expected, input);
});

t.test('values handed to the library are redacted anywhere, until their client is forgotten', async (t) => {
  const r = python(`
import json
from sidecar_redact import Secrets, kwargs_secrets, proxy_secrets, settings_secrets
s = Secrets()
settings = {"authorization_data": {"ds_user_id": "5000000001", "sessionid": "5000000001%3AsEcReT%3A28"},
            "uuids": {"uuid": "0a1b2c3d-device", "phone_id": "9f8e7d6c-phone"}, "cookies": {"csrftoken": "tok3n-value", "ds_user_id": "5000000001"},
            "mid": "ZmlkLW1pZA", "user_agent": "Instagram 269.0.0.18.75 Android", "country": "US"}
s.hold("a", settings_secrets(settings) + proxy_secrets("http://user:pr0xy-pass@127.0.0.1:3128"))
s.hold("a", kwargs_secrets({"username": "demo", "password": "demo-password", "amount": 5, "settings": {"uuids": {"uuid": "other-device-1"}}}))
s.hold("b", ["abc", "shorty"])
line = "uuid 0a1b2c3d-device phone 9f8e7d6c-phone cookie 5000000001:sEcReT:28 raw 5000000001%3AsEcReT%3A28 tok3n-value ZmlkLW1pZA " \\
       "pw demo-password other-device-1 proxy http://user:pr0xy-pass@127.0.0.1:3128 pk 5000000001 ua Instagram 269.0.0.18.75 Android abc shorty"
before = s.redact(line)
s.forget("a")
after = s.redact("0a1b2c3d-device demo-password shorty")
for i in range(100):
    s.hold("c", [f"rolling-value-{i:03d}"], rolling=True)
s.hold("c", ["fixed-value-kept"])
rolled = s.redact("rolling-value-000 rolling-value-099 fixed-value-kept")
print(json.dumps({"before": before, "after": after, "rolled": rolled}))`);
  t.equal(
    r.before,
    'uuid [redacted] phone [redacted] cookie [redacted] raw [redacted] [redacted] [redacted] pw [redacted] ' +
      '[redacted] proxy [redacted] pk 5000000001 ua Instagram 269.0.0.18.75 Android abc [redacted]',
  );
  t.equal(r.after, '0a1b2c3d-device demo-password [redacted]', "a forgotten client's values are no longer held; another's still are");
  t.equal(r.rolled, 'rolling-value-000 [redacted] [redacted]', 'rotating values keep only the newest; handed ones stay');
});

t.test('the stderr stand-in redacts whole lines, however the writes are split', async (t) => {
  const r = python(`
import io, json, logging
from sidecar_redact import RedactingStream, Secrets
sink = io.StringIO()
secrets = Secrets()
secrets.hold("a", ["demo-password"])
stream = RedactingStream(sink, secrets)
stream.write("login with demo-pass")
stream.write("word and sessionid=")
stream.flush()
partial = sink.getvalue()
stream.write("abcdef; ok\\nsecond line demo-password\\ntail demo-")
stream.write("password")
stream.close()
print(json.dumps({"partial": partial, "out": sink.getvalue()}))`);
  t.equal(r.partial, '', 'a partial line waits for its end');
  t.equal(r.out, 'login with [redacted] and sessionid=[redacted]; ok\nsecond line [redacted]\ntail [redacted]\n');
});

t.test('codes of any length and the 1.12 device key, as the real library prints and logs them', async (t) => {
  const pem = [
    '-----BEGIN PRIVATE KEY-----',
    'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgStandInDeviceKeyX1',
    'hRANCAAQStandInDeviceSigningKeyForSocialgateTestsOnlyNotARealKey0',
    '-----END PRIVATE KEY-----',
    '',
  ].join('\n');
  const r = python(`
import json
from sidecar_redact import Secrets, kwargs_secrets, settings_secrets
s = Secrets()
pem = ${JSON.stringify(pem)}
s.hold("c1", kwargs_secrets({"verification_code": "4821", "username": "demo"}) + ["73915"], any_length=True)
s.hold("c1", kwargs_secrets({"security_code": "1234567"}), any_length=True)
s.hold("c2", settings_secrets({"usdid": {"usdid": "usdid-0a1b2c3d", "kid": "kid-standin-0001", "private_key": pem, "registered": True}}), rolling=True)
lines = [
    'Code entered "73915" for demo (0 attempts by 5 seconds)',
    "private_request data {'username': 'demo', 'verification_code': '4821', 'trust_this_device': '1'}",
    'two_factor_login code=4821 for user 5000000001 (pk 14821 stays)',
    'Code entered "1234567" for demo',
    "Client settings {'usdid': {'usdid': 'usdid-0a1b2c3d', 'kid': 'kid-standin-0001', 'private_key': " + repr(pem) + ", 'registered': True}}",
    *pem.splitlines(),
    '{"private_key": "abc", "registered": true}',
]
print(json.dumps({"out": [s.redact(l) for l in lines]}))`);
  const out = r.out as string[];
  t.equal(out[0], 'Code entered "[redacted]" for demo (0 attempts by 5 seconds)', 'a 5-digit challenge code as 1.0.9 prints it');
  t.equal(
    out[1],
    "private_request data {'username': 'demo', '[redacted]': '[redacted]', 'trust_this_device': '1'}".replace("'[redacted]': ", "'verification_code': "),
    'a 4-digit verification code in request data',
  );
  t.equal(out[2], 'two_factor_login code=[redacted] for user 5000000001 (pk 14821 stays)', 'short codes only as whole words');
  t.equal(out[3], 'Code entered "[redacted]" for demo');
  t.notMatch(out[4], /StandInDevice|usdid-0a1b2c3d|kid-standin/, 'the device key, id and kid in a settings dump');
  t.match(out[4], /'registered': True/);
  for (const line of out.slice(5, 9)) t.notMatch(line, /StandInDevice/, `a key logged across lines: ${line}`);
  t.equal(out[9], '{"private_key": "[redacted]", "registered": true}', 'any private_key field');
});
