"""The schemas of the structures tabula reads from a file or a request: ONNX metadata,
model manifests, reports, pipeline stage records, table and data set attributes and the
web API's bodies, validated by pydantic. A structure that does not fit is refused in
one line that names where it came from and the field (never a KeyError, a TypeError
or a RecursionError later); JSON is parsed with pydantic's limits on depth (200) and
here on size. Fields a schema does not name are kept: files carry more than a reader
needs (docs/FORMATS.md)."""
import json
from pathlib import Path
from typing import Annotated, Literal

from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field,
                      RootModel, StringConstraints, ValidationError)

from pydantic_core import from_json

from tabula.infra.settings import MAX_SEED

MAX_JSON_BYTES = 1 << 20   # a manifest, report or stage record is a few KB
MAX_NAME = 40              # characters of a name: game, rule set, level, side

Name = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME)]
Pieces = Annotated[int, Field(ge=1, le=99)]
Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]


def is_file_name(name) -> bool:
    """A plain file name, as a file records another beside it (never a path)."""
    return (isinstance(name, str) and 0 < len(name) <= 255 and name not in (".", "..")
            and "/" not in name and "\\" not in name)


def _plain_file_name(name: str) -> str:
    if not is_file_name(name):
        raise ValueError("must be a file name beside the manifest, not a path")
    return name


def _json_text(value):
    """HDF5 attributes cannot hold lists or dicts: tabula writes them as JSON text."""
    return json.loads(value) if isinstance(value, (str, bytes)) else value


FileName = Annotated[str, AfterValidator(_plain_file_name)]


class Schema(BaseModel):
    """Extra fields are kept; numbers must be finite."""
    model_config = ConfigDict(extra="allow", allow_inf_nan=False, populate_by_name=True)


class Variant(Schema):
    game: Name
    rules: Annotated[str, StringConstraints(max_length=MAX_NAME)]
    pieces: Pieces


class ModelManifest(Variant):
    """models/NAME.json beside NAME.onnx."""
    format: Literal["tabula-onnx-value"]
    sha256: Sha256
    file: FileName | None = None
    parameters: Annotated[int, Field(ge=1, le=10**9)] | None = None


class ModelMetadata(Schema):
    """The tabula.* metadata inside an ONNX file (every value is text there)."""
    format: Literal["tabula-onnx-value"] = Field(alias="tabula.format")
    game: Name = Field(alias="tabula.game")
    rules: Annotated[str, StringConstraints(max_length=MAX_NAME)] = Field(
        "", alias="tabula.rules")
    pieces: Pieces = Field(alias="tabula.pieces")


class ReportResults(Schema):
    """A report's results.json (the fields its readers use)."""
    provenance: dict
    players: list | dict | None = None


class StageRecord(Schema):
    stamp: Annotated[str, StringConstraints(max_length=64)]
    seconds: Annotated[float, Field(ge=0)]


StageName = Literal["solve", "datagen", "train", "finetune", "polish", "export", "report"]


class StageRecords(RootModel[dict[StageName, StageRecord]]):
    """A pipeline's stages.json: each finished stage's stamp and time."""


class GenerationRecord(StageRecord):
    teacher: Annotated[str, StringConstraints(max_length=4096)]
    records: Annotated[int, Field(ge=0)]
    regret: dict | None = None


class GenerationRecords(RootModel[dict[Annotated[str, StringConstraints(pattern=r"^\d{1,3}$")],
                                      GenerationRecord]]):
    """A distillation's distill.json: each finished generation's stamp, teacher,
    positions taught, time and measured loss."""


Layers = Annotated[list[tuple[Annotated[int, Field(ge=0)], Annotated[int, Field(ge=0)]]],
                   BeforeValidator(_json_text)]


class TableAttributes(Variant):
    """A solved table's HDF5 attributes (solver/table.py)."""
    layers: Layers
    sha256: Sha256
    max_total: Annotated[int, Field(ge=-1, le=10**6)] = -1
    tolerance: Annotated[float, Field(ge=0)]
    max_residual: Annotated[float, Field(ge=0)]
    machine: Annotated[dict, BeforeValidator(_json_text)] = {}
    solve_seconds: Annotated[float, Field(ge=0)] = 0.0
    start_value: Annotated[float, Field(ge=0, le=1)] | None = None


class SolveAttributes(Variant):
    """What every money or outcome table's HDF5 attributes hold of its solve."""
    sha256: Sha256
    machine: Annotated[dict, BeforeValidator(_json_text)] = {}
    solve_seconds: Annotated[float, Field(ge=0)]


class ContactTableAttributes(SolveAttributes):
    """A contact table's HDF5 attributes (solver/contact_table.py): what it holds and
    what its solve certified."""
    values: Annotated[list[Name], BeforeValidator(_json_text), Field(max_length=64)]
    layers: Annotated[list[tuple[Annotated[int, Field(ge=0)], Annotated[int, Field(ge=0)],
                                 Annotated[int, Field(ge=0)]]],
                      BeforeValidator(_json_text), Field(max_length=256)]
    sweeps: Annotated[int, Field(ge=0)]
    tolerance: Annotated[float, Field(ge=0)]
    residual: Annotated[float, Field(ge=0)]


SidePieces = Annotated[int, Field(ge=0, le=12)]   # men or kings of a checkers side


class OutcomeTableAttributes(SolveAttributes):
    """An outcome table's HDF5 attributes (solver/outcome_table.py): its slices in the
    order they were solved, with each one's first entry, and what the values hold."""
    slices: Annotated[list[tuple[SidePieces, SidePieces, SidePieces, SidePieces,
                                 Annotated[int, Field(ge=0)]]],
                      BeforeValidator(_json_text), Field(max_length=4096)]
    positions: Annotated[int, Field(ge=0)]
    wins: Annotated[int, Field(ge=0)]
    losses: Annotated[int, Field(ge=0)]
    draws: Annotated[int, Field(ge=0)]
    longest: Annotated[int, Field(ge=0)]


class DecisionSetAttributes(Variant):
    """A decision set's HDF5 attributes (datagen/decision_set.py): the kinds' names in
    the order of their bits, and the checksum of the header and the arrays."""
    kinds: Annotated[list[Annotated[str, StringConstraints(max_length=MAX_NAME)]],
                     BeforeValidator(_json_text), Field(max_length=62)]
    decisions_sha256: Sha256


class LayerAttributes(Schema):
    """A table layer's HDF5 attributes: what its solve took and certified."""
    positions: Annotated[int, Field(ge=0)]
    sweeps: Annotated[int, Field(ge=0)]
    policy_sweeps: Annotated[int, Field(ge=0)] = 0
    residual: Annotated[float, Field(ge=0)]


class DataAttributes(Variant):
    """A data set's HDF5 attributes (datagen/datafile.py)."""
    data_sha256: Sha256
    settings: Annotated[dict, BeforeValidator(_json_text)]
    counts: Annotated[dict, BeforeValidator(_json_text)]


class SetUpBoard(BaseModel):
    """A position a person set up on the page's board: each cell's seat and label (a
    king's "K"), and the seat on roll."""
    model_config = ConfigDict(extra="forbid", strict=True)
    cells: Annotated[dict[Name, Annotated[int, Field(ge=0, le=1)]], Field(max_length=64)]
    labels: Annotated[dict[Name, Name], Field(max_length=64)] = {}
    seat: Annotated[int, Field(ge=0, le=1)] = 0


class NewGameRequest(BaseModel):
    """POST /api/games."""
    model_config = ConfigDict(extra="forbid", strict=True)
    game: Name
    rules: Name | None = None
    pieces: Pieces | None = None
    level: Name = "journeyman"
    side: Name | None = None
    hotseat: bool = False
    seed: Annotated[int, Field(ge=0, le=MAX_SEED)] | None = None
    setup: Name | None = None   # your arrangement, in a game whose sides set up ('312')
    position: dict | None = None   # a position to start from, as the game writes one
    board: SetUpBoard | None = None   # or one set up on the board (Presentation.from_view)


class MoveRequest(BaseModel):
    """POST /api/games/ID/move: the index of one of the listed legal moves."""
    model_config = ConfigDict(extra="forbid", strict=True)
    move: Annotated[int, Field(ge=0, le=10_000)]


class CubeRequest(BaseModel):
    """POST /api/games/ID/cube: the player on roll doubles, or the other side answers."""
    model_config = ConfigDict(extra="forbid", strict=True)
    action: Literal["double", "take", "pass"]


def problem(err: ValidationError) -> str:
    """The first thing wrong, as 'field: what' in a few words."""
    first = err.errors(include_url=False)[0]
    field = ".".join(str(part) for part in first["loc"])
    message = first["msg"][:120]
    return f"{field}: {message}" if field else message


def check(schema: type[BaseModel], data, where: str, error=ValueError):
    """`data` as `schema`, or `error` naming `where` and the first field at fault."""
    try:
        return schema.model_validate(data)
    except ValidationError as err:
        raise error(f"{where}: {problem(err)}") from None


def load_json(path, error=ValueError):
    """The JSON value in the file at `path`: too large, not UTF-8, not JSON or nested
    deeper than 200 are each one line naming the file."""
    path = Path(path)
    if path.stat().st_size > MAX_JSON_BYTES:
        raise error(f"{path} is too large (over {MAX_JSON_BYTES:,} bytes)")
    try:
        return from_json(path.read_bytes())
    except ValueError as err:
        raise error(f"{path} is not JSON ({str(err)[:80]})") from None


def read_json(path, schema: type[BaseModel], error=ValueError):
    """The JSON file at `path` as `schema` (load_json, then check)."""
    return check(schema, load_json(path, error), str(path), error)


def read_records(path, schema: type[RootModel], log, redo: str) -> dict:
    """The records of finished work in the JSON file at `path` (a RootModel of a dict of
    records: stages, generations), as plain dicts; none when there is no such file, or
    when it does not fit `schema`, saying so with `redo` ('every stage runs again')."""
    path = Path(path)
    if not path.is_file():
        return {}
    try:
        records = read_json(path, schema).root
    except ValueError as err:
        log(f"{err}: {redo}")
        return {}
    return {key: record.model_dump(exclude_none=True) for key, record in records.items()}
