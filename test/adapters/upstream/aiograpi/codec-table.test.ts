// The sidecar's codec as a table of cases, run in Python: results to JSON, JSON arguments to what
// the signature annotates, exceptions to data. Real pydantic models too when pydantic is installed.
import { execFileSync } from 'node:child_process';
import t from 'tap';
import { FIXTURES } from '../../../helpers/sidecar.js';
import { fromRoot } from '../../../helpers/root.js';

const SIDECAR_DIR = fromRoot('adapters', 'upstream', 'aiograpi');

function python(script: string): Record<string, unknown> {
  const out = execFileSync('python3', ['-c', script], { env: { ...process.env, PYTHONPATH: [SIDECAR_DIR, FIXTURES].join(':'), PYTHONDONTWRITEBYTECODE: '1' } });
  return JSON.parse(out.toString()) as Record<string, unknown>;
}

t.test('results to JSON', async (t) => {
  const r = python(`
import dataclasses, enum, json, uuid
from datetime import date, datetime, timezone, timedelta
from decimal import Decimal
from pathlib import Path
from sidecar_codec import to_json
from aiograpi.types import UserShort
class Kind(enum.Enum):
    PHOTO = 1
@dataclasses.dataclass
class Point:
    x: float
    when: date
cases = {
  "aware": datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone.utc), "naive": datetime(2024, 1, 2, 3, 4, 5), "date": date(2024, 1, 2),
  "tuple": (1, ("a", None)), "int_keys": {1: "a", 2: "b"}, "big": 2**63 + 5, "negative_big": -(2**60), "safe": 2**53 - 1,
  "nan": float("nan"), "inf": float("inf"), "float": 1.5, "path": Path("/tmp/x.jpg"), "enum": Kind.PHOTO, "bytes": b"\\x00\\xffhi",
  "decimal": Decimal("1.25"), "uuid": uuid.UUID(int=1), "model": UserShort(pk="1", username="a"), "dataclass": Point(1.0, date(2024, 1, 2)),
  "timedelta": timedelta(seconds=90), "other": object.__new__(type("Opaque", (), {"__str__": lambda self: "opaque"})),
}
print(json.dumps({k: to_json(v) for k, v in cases.items()}))`);
  t.same(r, {
    aware: '2024-01-02T03:04:05+00:00',
    naive: '2024-01-02T03:04:05',
    date: '2024-01-02',
    tuple: [1, ['a', null]],
    int_keys: { 1: 'a', 2: 'b' },
    big: '9223372036854775813',
    negative_big: '-1152921504606846976',
    safe: 9007199254740991,
    nan: null,
    inf: null,
    float: 1.5,
    path: '/tmp/x.jpg',
    enum: 1,
    bytes: 'AP9oaQ==',
    decimal: 1.25,
    uuid: '00000000-0000-0000-0000-000000000001',
    model: { pk: '1', username: 'a', full_name: '', profile_pic_url: null, is_private: null },
    dataclass: { x: 1, when: '2024-01-02' },
    timedelta: 90,
    other: 'opaque',
  });
});

t.test('real pydantic v2 models dump in JSON mode', { skip: hasPydantic() ? false : 'pydantic is not installed' }, async (t) => {
  const r = python(`
import json
from datetime import datetime, timezone
from typing import List, Optional
from pydantic import BaseModel, HttpUrl
from sidecar_codec import to_json, convert
class Owner(BaseModel):
    pk: str
class Media(BaseModel):
    pk: str
    taken_at: datetime
    thumbnail_url: Optional[HttpUrl] = None
    owner: Owner
    likers: List[Owner] = []
m = Media(pk="1", taken_at=datetime(2024, 1, 2, tzinfo=timezone.utc), thumbnail_url="https://cdn.example.com/a.jpg", owner={"pk": "9"})
back = convert({"pk": "2", "taken_at": "2024-01-02T00:00:00Z", "owner": {"pk": "3"}}, Media)
print(json.dumps({"dump": to_json(m), "list": to_json([m])[0]["owner"], "converted": [type(back).__name__, back.owner.pk]}))`);
  t.same(r.dump, { pk: '1', taken_at: '2024-01-02T00:00:00Z', thumbnail_url: 'https://cdn.example.com/a.jpg', owner: { pk: '9' }, likers: [] });
  t.same(r.list, { pk: '9' });
  t.same(r.converted, ['Media', '3'], 'a dict becomes the model the signature names');
});

t.test('arguments to what the signature annotates', async (t) => {
  const r = python(`
import enum, json
from pathlib import Path
from typing import Dict, List, Optional, Union
from sidecar_codec import convert_kwargs
from aiograpi.types import Location, Usertag
class Choice(enum.Enum):
    SMS = 0
    EMAIL = 1
class Track:
    @classmethod
    def model_validate(cls, data):
        raise AssertionError("a dict stays a dict where Dict is allowed")
def method(path: Path, paths: List[Path], thumb: Optional[Path], either: Union[str, Path], media_pk: int, amount: Optional[int],
           user_id: str, usertags: List[Usertag], location: Location, track: Union[Track, Dict], choice: Choice, named: Choice,
           loose, fwd: "Path", fwds: "List[Path]", extra: Dict[str, str], none_path: Path = None):
    pass
got = convert_kwargs(method, {"path": "/a.jpg", "paths": ["/a", "/b"], "thumb": "/t.jpg", "either": "/e", "media_pk": "3141592653589793238",
  "amount": "5", "user_id": "12", "usertags": [{"user": {"pk": "1"}, "x": 0.1, "y": 0.2}], "location": {"name": "Lisbon"},
  "track": {"id": "1"}, "choice": 1, "named": "SMS", "loose": "x", "fwd": "/f", "fwds": ["/g"], "extra": {"a": "1"}, "none_path": None})
def show(v):
    if isinstance(v, list): return [show(i) for i in v]
    if hasattr(v, "model_dump"): return [type(v).__name__, v.model_dump(mode="json")]
    return [type(v).__name__, v if isinstance(v, (str, int, float, dict)) or v is None else str(v)]
print(json.dumps({k: show(v) for k, v in got.items()}))`);
  t.same(
    r,
    {
      path: ['PosixPath', '/a.jpg'],
      paths: [
        ['PosixPath', '/a'],
        ['PosixPath', '/b'],
      ],
      thumb: ['PosixPath', '/t.jpg'],
      either: ['str', '/e'],
      // biome-ignore lint/correctness/noPrecisionLoss: the same precision JSON.parse keeps of Python's exact int
      media_pk: ['int', 3141592653589793238],
      amount: ['int', 5],
      user_id: ['str', '12'],
      usertags: [['Usertag', { user: { pk: '1', username: null, full_name: '', profile_pic_url: null, is_private: null }, x: 0.1, y: 0.2 }]],
      location: ['Location', { pk: null, name: 'Lisbon', lat: null, lng: null }],
      track: ['dict', { id: '1' }],
      choice: ['Choice', 'Choice.EMAIL'],
      named: ['Choice', 'Choice.SMS'],
      loose: ['str', 'x'],
      fwd: ['PosixPath', '/f'],
      fwds: [['PosixPath', '/g']],
      extra: ['dict', { a: '1' }],
      none_path: ['NoneType', null],
    },
    'paths, ints, records, enums; strings and dicts stay where allowed',
  );
});

t.test('exceptions to data', async (t) => {
  const r = python(`
import json
from sidecar_codec import encode_error
from aiograpi.exceptions import ChallengeRequired, HashtagPageWarning, WrongCursorError
class Client: last_json = {"message": "challenge_required", "step": 2**60}
print(json.dumps({
  "challenge": encode_error(ChallengeRequired(message="challenge_required"), Client()),
  "diamond": encode_error(HashtagPageWarning("blocked"), Client()),
  "class_message": encode_error(WrongCursorError(), None),
  "plain": encode_error(KeyError("x"), Client()),
}))`);
  t.same(r.challenge, {
    type: 'ChallengeRequired',
    bases: ['ChallengeError', 'PrivateError', 'ClientError', 'Exception', 'BaseException'],
    message: 'challenge_required',
    last_json: { message: 'challenge_required', step: '1152921504606846976' },
  });
  t.same(
    r.diamond,
    {
      type: 'HashtagPageWarning',
      bases: ['ClientForbiddenError', 'HashtagError', 'PrivateError', 'ClientError', 'Exception', 'BaseException'],
      message: 'blocked',
    },
    'the MRO of a class with two bases; no last_json outside challenges',
  );
  t.same(r.class_message, { type: 'WrongCursorError', bases: ['ClientError', 'Exception', 'BaseException'], message: 'You specified a non-existent cursor' });
  t.same(r.plain, { type: 'KeyError', bases: ['LookupError', 'Exception', 'BaseException'], message: "'x'" });
});

function hasPydantic(): boolean {
  try {
    execFileSync('python3', ['-c', 'import pydantic; assert pydantic.VERSION.startswith("2")'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
