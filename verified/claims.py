"""Claims: loading and validating ``snippets/<article>/claims.toml``.

The format is described in ``snippets/README.md``. Everything here is plain data; running a
claim is :mod:`verified.runner`'s job.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SNIPPETS = ROOT / "snippets"

FRAMEWORKS = ("paddle", "torch")
FRAMEWORK_NAMES = {"paddle": "PaddlePaddle", "torch": "PyTorch"}  # the tab titles
LANGS = ("en", "zh")  # page languages; every statement has one text per language
DEVICES = ("cpu", "gpu")
KINDS = ("error", "value", "behaviour", "memory", "timing")
ISOLATED_KINDS = ("memory", "timing")
ID_RE = re.compile(r"^[a-z0-9]+(?:[.-][a-z0-9]+)*$")

# Keys allowed at claim level (and, apart from the first group, inside expect.<fw>[.<device>]).
CLAIM_ONLY_KEYS = {"id", "kind", "statement", "devices", "expect"}
SHARED_KEYS = {"snippet", "timeout", "mode", "observe"}
KIND_KEYS = {
    "error": {"type", "match"},
    "value": {"value", "tol"},
    "behaviour": {"facts"},
    "memory": {"region", "regions", "theoretical", "bytes", "tol_bytes"},
    "timing": {"baseline", "candidate", "repeat", "ratio_min", "ratio_max"},
}
REQUIRED = {
    "error": ("type", "match"),
    "value": ("observe", "value"),
    "behaviour": ("observe", "facts"),
    "memory": ("theoretical", "bytes"),
    "timing": ("baseline", "candidate"),
}


class ClaimError(ValueError):
    """A malformed claim: the message names the file and the field."""

    def __init__(self, path: Path, field_name: str, problem: str) -> None:
        try:
            shown = path.relative_to(ROOT)
        except ValueError:
            shown = path
        super().__init__(f"{shown}: {field_name}: {problem}")


@dataclass(frozen=True)
class Case:
    """One claim for one framework on one device: what pytest runs and the report records."""

    claim: Claim
    framework: str
    device: str
    spec: dict  # merged keys: claim level < expect.<fw> < expect.<fw>.<device>

    @property
    def name(self) -> str:
        return f"{self.claim.id}[{self.framework}-{self.device}]"

    @property
    def snippet_path(self) -> Path:
        return self.claim.path.parent / f"{self.spec['snippet']}_{self.framework}.py"

    @property
    def isolated(self) -> bool:
        return self.claim.kind in ISOLATED_KINDS or self.spec.get("mode") == "script"

    @property
    def timeout(self) -> float:
        return float(self.spec.get("timeout", 120))

    def expected(self) -> dict:
        keys = KIND_KEYS[self.claim.kind]
        return {k: v for k, v in self.spec.items() if k in keys}

    def source_hash(self) -> str:
        """Hash of the snippet source, the merged spec and the statement: a record whose hash
        differs from the current sources is stale."""
        digest = hashlib.sha256(self.snippet_path.read_bytes())
        digest.update(json.dumps(self.spec, sort_keys=True).encode())
        digest.update(json.dumps(self.claim.statement, sort_keys=True).encode())
        digest.update(self.claim.kind.encode())
        return digest.hexdigest()[:16]


@dataclass(frozen=True)
class Claim:
    id: str
    kind: str
    path: Path  # the claims.toml it was declared in
    statement: dict
    devices: tuple
    raw: dict = field(repr=False, compare=False, hash=False)

    @property
    def article(self) -> str:
        return self.path.parent.name

    def cases(self) -> list[Case]:
        return [
            Case(self, fw, dev, _merge(self.raw, fw, dev))
            for fw in FRAMEWORKS
            for dev in self.devices
        ]


def _merge(raw: dict, framework: str, device: str) -> dict:
    spec = {k: v for k, v in raw.items() if k not in CLAIM_ONLY_KEYS}
    per_fw = dict(raw["expect"][framework])
    per_dev = {d: per_fw.pop(d) for d in DEVICES if d in per_fw}
    spec.update(per_fw)
    spec.update(per_dev.get(device, {}))
    return spec


def load_claims(path: Path) -> list[Claim]:
    """Load and validate one claims.toml; raise ClaimError naming file and field."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ClaimError(path, "toml", str(exc)) from None
    unknown_top = set(data) - {"claim"}
    if unknown_top:
        raise ClaimError(path, ", ".join(sorted(unknown_top)), "unknown top-level key")
    claims = [_validate(path, i, raw) for i, raw in enumerate(data.get("claim", []))]
    if not claims:
        raise ClaimError(path, "claim", "no [[claim]] entries")
    seen: set[str] = set()
    for claim in claims:
        if claim.id in seen:
            raise ClaimError(path, f"claim {claim.id!r}.id", "duplicate id")
        seen.add(claim.id)
    return claims


def _validate(path: Path, index: int, raw: dict) -> Claim:
    where = f"claim[{index}]"
    cid = raw.get("id")
    if not isinstance(cid, str) or not ID_RE.match(cid):
        raise ClaimError(path, f"{where}.id", f"missing or malformed id {cid!r}")
    where = f"claim {cid!r}"
    if not cid.startswith(path.parent.name + "."):
        raise ClaimError(path, f"{where}.id", f"must start with '{path.parent.name}.'")
    kind = raw.get("kind")
    if kind not in KINDS:
        raise ClaimError(path, f"{where}.kind", f"unknown kind {kind!r} (expected one of {KINDS})")
    allowed = CLAIM_ONLY_KEYS | SHARED_KEYS | KIND_KEYS[kind]
    for key in raw:
        if key not in allowed:
            raise ClaimError(path, f"{where}.{key}", f"unknown key for kind {kind!r}")
    statement = raw.get("statement")
    if (
        not isinstance(statement, dict)
        or set(statement) != set(LANGS)
        or not all(isinstance(v, str) and v.strip() for v in statement.values())
    ):
        raise ClaimError(path, f"{where}.statement", "needs non-empty 'en' and 'zh' strings")
    devices = tuple(raw.get("devices", DEVICES))
    if not devices or any(d not in DEVICES for d in devices):
        raise ClaimError(path, f"{where}.devices", f"must be a non-empty subset of {DEVICES}")
    expect = raw.get("expect")
    if not isinstance(expect, dict):
        raise ClaimError(path, f"{where}.expect", "missing [claim.expect.<framework>] tables")
    for fw in expect:
        if fw not in FRAMEWORKS:
            raise ClaimError(path, f"{where}.expect.{fw}", "unknown framework")
    for fw in FRAMEWORKS:
        if fw not in expect:
            raise ClaimError(path, f"{where}.expect.{fw}", "missing expectation for framework")
        for key, value in expect[fw].items():
            if key in DEVICES:
                if not isinstance(value, dict):
                    raise ClaimError(path, f"{where}.expect.{fw}.{key}", "must be a table")
                for sub in value:
                    if sub not in allowed - CLAIM_ONLY_KEYS:
                        raise ClaimError(path, f"{where}.expect.{fw}.{key}.{sub}", "unknown key")
            elif key not in allowed - CLAIM_ONLY_KEYS:
                raise ClaimError(path, f"{where}.expect.{fw}.{key}", "unknown key")
    claim = Claim(cid, kind, path, statement, devices, raw)
    for case in claim.cases():
        _validate_case(path, f"{where}.expect.{case.framework}", case)
    return claim


def _validate_case(path: Path, where: str, case: Case) -> None:
    spec = case.spec
    kind = case.claim.kind
    if "snippet" not in spec:
        raise ClaimError(path, f"{where}.snippet", "missing")
    if not case.snippet_path.is_file():
        raise ClaimError(path, f"{where}.snippet", f"file not found: {case.snippet_path.name}")
    for key in REQUIRED[kind]:
        if key not in spec:
            raise ClaimError(path, f"{where}.{key}", f"required for kind {kind!r}")
    if kind == "memory" and ("region" in spec) == ("regions" in spec):
        raise ClaimError(path, f"{where}.region", "give exactly one of 'region' or 'regions'")
    if spec.get("mode", "namespace") not in ("namespace", "script"):
        raise ClaimError(path, f"{where}.mode", "must be 'namespace' or 'script'")
    if kind == "error":
        try:
            re.compile(spec["match"])
        except re.error as exc:
            raise ClaimError(
                path, f"{where}.match", f"regular expression does not compile: {exc}"
            ) from None
    if kind == "behaviour" and not isinstance(spec["facts"], dict):
        raise ClaimError(path, f"{where}.facts", "must be a table")
    for key in ("observe", "region", "baseline", "candidate"):
        if key in spec and isinstance(spec[key], str):
            try:
                compile(spec[key], f"{path}:{where}.{key}", "eval")
            except SyntaxError as exc:
                raise ClaimError(
                    path, f"{where}.{key}", f"not a Python expression: {exc.msg}"
                ) from None


def discover(root: Path = SNIPPETS) -> list[Claim]:
    claims: list[Claim] = []
    for path in sorted(root.glob("*/claims.toml")):
        claims.extend(load_claims(path))
    return claims


def all_cases(root: Path = SNIPPETS) -> dict[tuple[str, str, str], Case]:
    return {
        (case.claim.id, case.framework, case.device): case
        for claim in discover(root)
        for case in claim.cases()
    }
