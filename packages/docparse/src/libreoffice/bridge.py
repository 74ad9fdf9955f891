"""One LibreOffice worker of the office pool (see pool.ts): starts a headless soffice with its own profile,
listening on a private pipe, connects to it through Python-UNO, then converts one document per request line.

Protocol on stdin/stdout, one JSON object per line:
  out  {"ready": true}                                       once soffice answers
  in   {"input": "/path/in.doc", "output": "/path/out.docx", "filter": "MS Word 2007 XML"}
  out  {"ok": true} | {"error": "why"}
When stdin closes (the Node process or thread that owns this worker ended), soffice is ended and this exits.
Usage: bridge.py <profile dir> <pipe name>
"""

import json
import os
import subprocess
import sys
import time

import uno
from com.sun.star.beans import PropertyValue


def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    profile, pipe = sys.argv[1], sys.argv[2]
    office = subprocess.Popen(
        [
            "soffice",
            "--headless",
            "--invisible",
            "--nologo",
            "--norestore",
            "--nodefault",
            "--nolockcheck",
            "--nofirststartwizard",
            "-env:UserInstallation=" + uno.systemPathToFileUrl(profile),
            "--accept=pipe,name=%s;urp;StarOffice.ComponentContext" % pipe,
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        serve(office, pipe)
    finally:
        office.terminate()
        try:
            office.wait(5)
        except subprocess.TimeoutExpired:
            office.kill()


def serve(office, pipe):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    deadline = time.time() + 90
    while True:
        try:
            ctx = resolver.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe)
            break
        except Exception:
            if office.poll() is not None:
                reply({"error": "soffice exited with code %s while starting" % office.returncode})
                return
            if time.time() > deadline:
                reply({"error": "soffice did not start within 90 s"})
                return
            time.sleep(0.05)
    desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
    reply({"ready": True})
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            convert(desktop, request)
            reply({"ok": True})
        except Exception as error:  # a UNO exception says why the document could not be read
            message = getattr(error, "Message", "") or str(error) or type(error).__name__
            reply({"error": message.strip().splitlines()[0] if message.strip() else type(error).__name__})


def convert(desktop, request):
    load = (
        prop("Hidden", True),
        prop("ReadOnly", True),
        # Never run macros, never update links to other files.
        prop("MacroExecutionMode", 0),
        prop("UpdateDocMode", 0),
        prop("RepairPackage", False),
    )
    doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(request["input"]), "_blank", 0, load)
    if doc is None:
        raise RuntimeError("LibreOffice could not open the document")
    try:
        store = (prop("FilterName", request["filter"]), prop("Overwrite", True))
        doc.storeToURL(uno.systemPathToFileUrl(request["output"]), store)
    finally:
        try:
            doc.close(True)
        except Exception:
            doc.dispose()


if __name__ == "__main__":
    os.environ.setdefault("SAL_USE_VCLPLUGIN", "svp")
    main()
