"""The public platform's Python SDK (tensorlake.documentai) against a running server, as a new user calls it.

Run by python-documents.test.ts with SVC_URL, SVC_KEY and SVC_CORPUS_PDF in the environment. Each step checks what
the SDK returns; the last line printed is a JSON report of values the Node test checks again. Debian's httpx and
rich (/usr/lib/python3/dist-packages) are put after the interpreter's own packages, so its pydantic 2 wins.
"""

import asyncio
import json
import os
import sys
import tempfile

sys.path.append("/usr/lib/python3/dist-packages")

from pydantic import BaseModel  # noqa: E402

from tensorlake.documentai import (  # noqa: E402
    DatasetDataFilter,
    DocumentAI,
    FormFillingOptions,
    MimeType,
    PageClassConfig,
    ParseStatus,
    ParsingOptions,
    StructuredExtractionOptions,
)
from tensorlake.documentai.models import DocumentAIError, PaginationDirection  # noqa: E402

URL = os.environ["SVC_URL"]
KEY = os.environ["SVC_KEY"]
PDF = os.environ["SVC_CORPUS_PDF"]

INVOICE = "\n".join(
    [
        "INVOICE",
        "Invoice Number: INV-2041",
        "Invoice Date: 2025-03-14",
        "Bill To: Acme Industries",
        "Subtotal: 1,200.00",
        "Tax: 96.00",
        "Total Due: 1,296.00",
    ]
)
MEMO = "\n".join(
    [
        "INTERNAL MEMO",
        "To: All staff",
        "From: Facilities",
        "Subject: Parking garage closed on Friday",
        "This memo informs all staff that the parking garage is closed on Friday for repairs.",
    ]
)


class Invoice(BaseModel):
    invoice_number: str
    total_due: float


report = {}


def expect_error(code, call):
    """Runs call, which must fail with DocumentAIError of this code; returns the error's message."""
    try:
        call()
    except DocumentAIError as error:
        got = error.code.value if hasattr(error.code, "value") else error.code
        assert got == code, f"expected {code}, got {got}: {error}"
        return str(error)
    raise AssertionError(f"expected DocumentAIError {code}, got success")


def classes_found(result):
    """The page classes that own at least one page."""
    return [c.page_class for c in result.page_classes or [] if c.page_numbers]


def check_finished(result, what):
    assert result.status == ParseStatus.SUCCESSFUL, f"{what}: {result.status} {result.error}"


doc = DocumentAI(api_key=KEY, server_url=URL)

# Files: upload, list (the platform's FileInfo shape, paged), delete.
file_id = doc.upload(PDF)
assert file_id.startswith("file_"), file_id
with tempfile.TemporaryDirectory() as tmp:
    second = os.path.join(tmp, "second.md")
    with open(second, "w") as f:
        f.write("# Second\n\nA short markdown file.\n")
    second_id = doc.upload(second)
files = doc.files()
names = sorted(item.name for item in files.items)
assert names == ["multi_page.pdf", "second.md"], names
pdf_info = next(item for item in files.items if item.id == file_id)
assert pdf_info.file_size == os.path.getsize(PDF), pdf_info
assert pdf_info.mime_type == "application/pdf", pdf_info
first_page = doc.files(limit=1)
assert len(first_page.items) == 1 and first_page.has_more and first_page.next_cursor, first_page
next_page = doc.files(limit=1, cursor=first_page.next_cursor, direction=PaginationDirection.next)
assert len(next_page.items) == 1 and next_page.items[0].id != first_page.items[0].id, next_page
assert [f.name for f in doc.files(filename="second.md").items] == ["second.md"]
report["files"] = {"names": names, "paged": [first_page.items[0].name, next_page.items[0].name]}
doc.delete_file(second_id)
assert [item.id for item in doc.files().items] == [file_id]

# Parse and wait over server-sent events; read; results by polling.
parsed = doc.parse_and_wait(file_id=file_id, page_range="1-2", labels={"source": "conformance"})
check_finished(parsed, "parse_and_wait")
assert parsed.total_pages and parsed.total_pages >= 2, parsed.total_pages
assert parsed.parsed_pages_count == 2, parsed.parsed_pages_count
assert parsed.chunks and parsed.chunks[0].content.strip(), "no markdown"
assert parsed.labels == {"source": "conformance"}, parsed.labels
read_id = doc.read(file_id=file_id, parsing_options=ParsingOptions(chunking_strategy="page"))
read = doc.wait_for_completion(read_id)
check_finished(read, "read")
polled = doc.get_parsed_result(read_id)
assert polled.parse_id == read_id and polled.status == ParseStatus.SUCCESSFUL, polled.status
assert len(polled.chunks) == polled.parsed_pages_count, "page chunks"
assert doc.result(read_id).parse_id == read_id
report["parse"] = {"pages": parsed.parsed_pages_count, "read_chunks": len(read.chunks)}

# Parse with extraction and page classes, in one call.
classes = [
    PageClassConfig(name="invoice", description="an invoice with amounts due"),
    PageClassConfig(name="memo", description="an internal memo to staff, with To, From and Subject lines"),
]
extraction = StructuredExtractionOptions(schema_name="invoice", json_schema=Invoice)
both = doc.parse_and_wait(
    raw_text=INVOICE,
    mime_type=MimeType.TEXT,
    structured_extraction_options=[extraction],
    page_classifications=classes,
)
check_finished(both, "parse with extraction")
assert both.structured_data[0].data["invoice_number"] == "INV-2041", both.structured_data
assert classes_found(both) == ["invoice"], both.page_classes

# Extract and classify: jobs of their own, results as any parse's.
extract_id = doc.extract(extraction, raw_text=INVOICE, mime_type=MimeType.TEXT, labels={"step": "extract"})
extracted = doc.wait_for_completion(extract_id)
check_finished(extracted, "extract")
data = extracted.structured_data[0].data
assert data["invoice_number"] == "INV-2041" and data["total_due"] == 1296, data
assert not classes_found(extracted), extracted.page_classes
classify_id = doc.classify(classes, raw_text=INVOICE, mime_type=MimeType.TEXT)
classified = doc.wait_for_completion(classify_id)
check_finished(classified, "classify")
assert classes_found(classified) == ["invoice"], classified.page_classes
assert sorted(c.page_class for c in classified.page_classes) == ["invoice", "memo"], classified.page_classes
assert not classified.structured_data, classified.structured_data
classify_file = doc.wait_for_completion(doc.classify(classes, file_id=file_id, page_range="1"))
check_finished(classify_file, "classify a file")
report["extract"] = data
report["classify"] = classes_found(classified)

# Datasets: create, get, list, update, parse a file, its data, delete.
dataset = doc.create_dataset(
    name="invoices",
    description="conformance",
    structured_extraction_options=[extraction],
)
assert dataset.name == "invoices" and dataset.dataset_id, dataset
assert doc.get_dataset(dataset.dataset_id).description == "conformance"
assert [d.name for d in doc.list_datasets().items] == ["invoices"]
updated = doc.update_dataset(dataset, description="updated", page_classifications=classes)
assert updated.description == "updated", updated
in_dataset = doc.parse_dataset_file(dataset, file_id, page_range="1", wait_for_completion=True)
check_finished(in_dataset, "dataset parse")
dataset_data = doc.get_dataset_data(dataset, DatasetDataFilter(limit=10, status=ParseStatus.SUCCESSFUL))
assert [r.parse_id for r in dataset_data.items] == [in_dataset.parse_id], dataset_data
report["dataset_data"] = len(dataset_data.items)

# Job lists and deletion.
listed = doc.list_parse_results(limit=100)
assert extract_id in [r.parse_id for r in listed.items], "extract job listed"
by_dataset = doc.list_parse_results(dataset_name="invoices", status=ParseStatus.SUCCESSFUL)
assert [r.parse_id for r in by_dataset.items] == [in_dataset.parse_id], by_dataset
doc.delete_parse(read_id)

# Errors carry the SDK's own codes.
codes = {}
codes["not_found"] = expect_error("ENTITY_NOT_FOUND", lambda: doc.get_parsed_result(read_id))
codes["exists"] = expect_error("ENTITY_ALREADY_EXISTS", lambda: doc.create_dataset(name="invoices"))
codes["page_range"] = expect_error("INVALID_PAGE_RANGE", lambda: doc.read(file_id=file_id, page_range="3-1"))
bad_schema = StructuredExtractionOptions(schema_name="bad", json_schema={"type": "object", "properties": {}})
codes["schema"] = expect_error("INVALID_JSON_SCHEMA", lambda: doc.extract(bad_schema, file_id=file_id))
codes["no_classes"] = expect_error("INVALID_PAGE_CLASSIFICATION", lambda: doc.classify([], file_id=file_id))
codes["edit"] = expect_error(
    "INVALID_CONFIGURATION", lambda: doc.edit(FormFillingOptions(fill_prompt="x"), file_id=file_id)
)
codes["missing_file"] = expect_error("ENTITY_NOT_FOUND", lambda: doc.delete_file("file_missing"))
report["errors"] = codes

doc.delete_dataset(dataset)
expect_error("ENTITY_NOT_FOUND", lambda: doc.get_dataset(dataset.dataset_id))


# The async client over the same routes.
async def run_async():
    async_files = await doc.files_async()
    assert [f.id for f in async_files.items] == [file_id], async_files
    parse_id = await doc.parse_async(raw_text=MEMO, mime_type=MimeType.TEXT)
    done = await doc.wait_for_completion_async(parse_id)
    check_finished(done, "parse_async")
    extract_async_id = await doc.extract_async(extraction, raw_text=INVOICE, mime_type=MimeType.TEXT)
    extracted_async = await doc.wait_for_completion_async(extract_async_id)
    assert extracted_async.structured_data[0].data["invoice_number"] == "INV-2041"
    classify_async_id = await doc.classify_async(classes, raw_text=MEMO, mime_type=MimeType.TEXT)
    classified_async = await doc.get_parsed_result_async(classify_async_id)
    assert classified_async.parse_id == classify_async_id
    try:
        await doc.get_parsed_result_async("parse_missing")
    except DocumentAIError as error:
        return error.code.value
    raise AssertionError("expected an error for a missing job")


report["async_not_found"] = asyncio.run(run_async())
doc.delete_file(file_id)
assert doc.files().items == []
print(json.dumps(report))
