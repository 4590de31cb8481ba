#!/usr/bin/python3
"""validate.py: checks web/openapi.json against itself and the server's live answers.

Run with Debian's interpreter (python3-jsonschema). Three commands:

  validate.py doc DOC ROUTES PENDING
      The document's structure: OpenAPI 3.1, every $ref resolves, every path
      parameter is declared, every schema is a valid JSON Schema 2020-12, every
      example validates against its schema, and its paths are exactly the server's
      routes (ROUTES, one "PATH<TAB>operationId" a line, from serve_route_path: the
      document's GET of each path has that operationId, and it has no other
      operation) but those in PENDING
      (routes whose entries are written elsewhere; one a line, may be empty).

  validate.py answers DOC BASE_URL CASES COVERED
      Sends each case of CASES (tab-separated: expected status, method, path, and
      optional header lines joined by " | "; "If-None-Match: @etag" first GETs the
      path for its ETag) to BASE_URL and checks that the status is the one expected,
      that the document lists it for that operation, and that the body, its
      Content-Type and the API's own headers match what the document says. Appends
      "PATH<TAB>STATUS" of each checked answer to COVERED.

  validate.py coverage DOC UNPROVOKED COVERED...
      Every status the document lists for every operation was checked by some case,
      but those in UNPROVOKED ("PATH<TAB>STATUS<TAB>why" lines).

Prints one line per problem and a summary; exits 1 when there is any problem.
"""
import http.client
import json
import re
import sys
import urllib.parse

import jsonschema
from jsonschema import Draft202012Validator, RefResolver

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
# Headers of the API's own whose presence the document must announce.
API_HEADERS = ("etag", "x-next-cursor", "retry-after", "www-authenticate")

problems = []


def problem(msg):
    problems.append(msg)
    print("FAIL " + msg)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def pointer(doc, ref):
    """The value a local $ref names, or None."""
    if not ref.startswith("#/"):
        return None
    node = doc
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return None
    return node


def deref(doc, node):
    seen = 0
    while isinstance(node, dict) and "$ref" in node and seen < 20:
        node = pointer(doc, node["$ref"])
        seen += 1
    return node


def validator(doc, schema):
    return Draft202012Validator(schema, resolver=RefResolver("", doc))


def check_value(doc, schema, value, where):
    try:
        errors = sorted(validator(doc, schema).iter_errors(value), key=lambda e: list(e.path))
    except jsonschema.exceptions.RefResolutionError as e:
        problem("%s: %s" % (where, e))
        return False
    for e in errors[:5]:
        path = "/".join(str(p) for p in e.absolute_path)
        problem("%s: at /%s: %s" % (where, path, e.message[:300]))
    return not errors


def walk(node, where=""):
    if isinstance(node, dict):
        yield node, where
        for k, v in node.items():
            yield from walk(v, where + "/" + k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from walk(v, where + "/" + str(i))


def operations(doc):
    for path, item in doc.get("paths", {}).items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]


def check_doc(doc, routes, pending):
    # The outline of an OpenAPI 3.1 document (the specification's section 4.8).
    if not re.fullmatch(r"3\.1\.\d+", str(doc.get("openapi", ""))):
        problem("openapi is %r, not 3.1.x" % doc.get("openapi"))
    info = doc.get("info", {})
    for key in ("title", "version"):
        if not isinstance(info.get(key), str):
            problem("info.%s missing" % key)
    for node, where in walk(doc):
        ref = node.get("$ref")
        if isinstance(ref, str) and pointer(doc, ref) is None:
            problem("%s: $ref %s does not resolve" % (where, ref))
    for name, schema in doc.get("components", {}).get("schemas", {}).items():
        try:
            Draft202012Validator.check_schema(schema)
        except jsonschema.exceptions.SchemaError as e:
            problem("components/schemas/%s: not a JSON Schema: %s" % (name, e.message))
    ids = set()
    for path, method, op in operations(doc):
        where = "%s %s" % (method.upper(), path)
        if not path.startswith("/"):
            problem("%s: a path starts with /" % where)
        oid = op.get("operationId")
        if oid in ids:
            problem("%s: operationId %s twice" % (where, oid))
        ids.add(oid)
        params = [deref(doc, p) for p in doc["paths"][path].get("parameters", [])]
        params += [deref(doc, p) for p in op.get("parameters", [])]
        for p in params:
            if p is None or p.get("in") not in ("query", "header", "path", "cookie"):
                problem("%s: a parameter without a valid 'in'" % where)
                continue
            if "schema" not in p:
                problem("%s: parameter %s has no schema" % (where, p.get("name")))
            elif "example" in p:
                check_value(doc, p["schema"], p["example"], "%s parameter %s example" % (where, p["name"]))
        declared = {p["name"] for p in params if p and p.get("in") == "path"}
        for name in re.findall(r"\{([^}]+)\}", path):
            if name not in declared:
                problem("%s: path parameter {%s} is not declared" % (where, name))
        for p in params:
            if p and p.get("in") == "path" and ("{%s}" % p["name"]) not in path:
                problem("%s: path parameter %s is not in the path" % (where, p["name"]))
            if p and p.get("in") == "path" and p.get("required") is not True:
                problem("%s: path parameter %s must be required" % (where, p["name"]))
        responses = op.get("responses", {})
        if not responses:
            problem("%s: no responses" % where)
        for status, resp in responses.items():
            resp = deref(doc, resp)
            if resp is None or not isinstance(resp.get("description"), str):
                problem("%s %s: a response needs a description" % (where, status))
                continue
            if status not in ("200", "204", "304") and "content" not in resp:
                problem("%s %s: an error answer without content" % (where, status))
            for ctype, media in resp.get("content", {}).items():
                schema = media.get("schema")
                if schema is None:
                    problem("%s %s %s: no schema" % (where, status, ctype))
                    continue
                examples = list(media.get("examples", {}).items())
                if "example" in media:
                    examples.append(("example", {"value": media["example"]}))
                if status.startswith(("4", "5")) and not examples:
                    problem("%s %s: an error without an example" % (where, status))
                for name, ex in examples:
                    ex = deref(doc, ex)
                    check_value(doc, schema, ex.get("value"), "%s %s %s example %s" % (where, status, ctype, name))
    paths = set(doc.get("paths", {}))
    for r, oid in routes.items():
        if r not in paths and r not in pending:
            problem("route %s of the server is not in the document" % r)
        elif r in paths and oid is not None:
            got = doc["paths"][r].get("get", {}).get("operationId")
            if got != oid:
                problem("GET %s is %s in the document, %s in the server's table" % (r, got, oid))
    for path, method, op in operations(doc):
        if path not in routes:
            continue
        if method != "get" or (routes[path] is not None and op.get("operationId") != routes[path]):
            problem("the document's %s %s (%s) is not a row of the server's table" % (method.upper(), path, op.get("operationId")))
    for p in paths:
        if p not in routes:
            problem("the document's path %s is not a route of the server" % p)
    for p in pending:
        if p in paths:
            problem("%s is listed as pending but the document has it: drop it from the list" % p)


def template_of(doc, path):
    """The document's path template matching a request path: literal first."""
    paths = doc.get("paths", {})
    if path in paths:
        return path
    for t in paths:
        if "{" not in t:
            continue
        rx = re.escape(t)
        rx = rx.replace(r"\{path\}", ".+")
        rx = re.sub(r"\\\{[^}]+\\\}", "[^/]+", rx)
        if re.fullmatch(rx, path):
            return t
    return None


def send(base, method, target, headers):
    u = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
    conn.request(method, target, headers=headers)
    r = conn.getresponse()
    body = r.read()
    hdrs = {k.lower(): v for k, v in r.getheaders()}
    conn.close()
    return r.status, hdrs, body


def check_answer(doc, base, want, method, target, headers, covered):
    where = "%s %s -> %s" % (method, target, want)
    hdrs = {}
    for h in headers:
        name, _, value = h.partition(":")
        hdrs[name.strip()] = value.strip()
    if hdrs.get("If-None-Match") == "@etag":
        status, got, _ = send(base, "GET", target, {k: v for k, v in hdrs.items() if k != "If-None-Match"})
        if "etag" not in got:
            problem("%s: the first answer (%d) has no ETag" % (where, status))
            return
        hdrs["If-None-Match"] = got["etag"]
    status, got, body = send(base, method, target, hdrs)
    if status != want:
        problem("%s: answered %d: %s" % (where, status, body[:300].decode("utf-8", "replace")))
        return
    path = urllib.parse.urlsplit(target).path
    template = template_of(doc, path)
    if template is None:
        # Unknown paths answer 404 with the error body, as the document's description
        # says.
        if status != 404:
            problem("%s: no path of the document matches %s" % (where, path))
        else:
            check_value(doc, {"$ref": "#/components/schemas/Error"}, json.loads(body), where)
        return
    op = doc["paths"][template].get(method.lower() if method != "HEAD" else "get")
    if op is None:
        # Methods the document does not list answer 405, as its description says.
        if status != 405 or "allow" not in got:
            problem("%s: %s is not an operation of %s" % (where, method, template))
        check_value(doc, {"$ref": "#/components/schemas/Error"}, json.loads(body), where)
        return
    resp = deref(doc, op.get("responses", {}).get(str(status)))
    if resp is None:
        problem("%s: the document lists no %d for %s %s" % (where, status, method, template))
        return
    covered.write("%s\t%d\n" % (template, status))
    for h in API_HEADERS:
        if h in got and h not in {k.lower() for k in resp.get("headers", {})}:
            problem("%s: header %s is not in the document" % (where, h))
    content = resp.get("content", {})
    ctype = got.get("content-type", "").split(";")[0].strip()
    if not content:
        if body or method == "HEAD":
            if body:
                problem("%s: a body the document does not announce" % where)
        return
    if method == "HEAD":
        return
    media = content.get(ctype) or content.get("*/*")
    if media is None:
        problem("%s: Content-Type %s is not one of %s" % (where, ctype, sorted(content)))
        return
    if ctype == "application/json":
        try:
            value = json.loads(body)
        except ValueError as e:
            problem("%s: not JSON: %s" % (where, e))
            return
    elif ctype.startswith("text/"):
        value = body.decode("utf-8")
    else:
        return
    check_value(doc, media["schema"], value, where)
    if ctype == "text/csv":
        # The header line is the document's example's: the columns cannot drift.
        ex = next(iter(media.get("examples", {}).values()), {}).get("value", "")
        if value.split("\n", 1)[0] != ex.split("\n", 1)[0]:
            problem("%s: CSV header %r differs from the document's %r" % (where, value.split("\n", 1)[0][:200], ex.split("\n", 1)[0][:200]))


def run_answers(doc, base, cases_path, covered_path):
    n = 0
    with open(cases_path, encoding="utf-8") as f, open(covered_path, "a", encoding="utf-8") as covered:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            headers = [h for h in fields[3].split(" | ") if h] if len(fields) > 3 else []
            try:
                check_answer(doc, base, int(fields[0]), fields[1], fields[2], headers, covered)
            except (OSError, http.client.HTTPException) as e:
                problem("%s %s: %s" % (fields[1], fields[2], e))
            n += 1
    print("%d answers checked" % n)


def run_coverage(doc, unprovoked_path, covered_paths):
    covered = set()
    for p in covered_paths:
        with open(p, encoding="utf-8") as f:
            covered |= {tuple(l.rstrip("\n").split("\t")[:2]) for l in f if l.strip()}
    excused = set()
    with open(unprovoked_path, encoding="utf-8") as f:
        for l in f:
            if l.strip() and not l.startswith("#"):
                excused.add(tuple(l.rstrip("\n").split("\t")[:2]))
    n = 0
    for path, method, op in operations(doc):
        for status in op.get("responses", {}):
            n += 1
            if (path, status) not in covered and (path, status) not in excused:
                problem("%s %s: status %s was never provoked" % (method.upper(), path, status))
    print("%d documented answers, %d provoked" % (n, len(covered)))


def main(argv):
    if len(argv) == 5 and argv[1] == "doc":
        doc = load(argv[2])
        with open(argv[3], encoding="utf-8") as f:
            # PATH, or PATH<TAB>operationId: a row of the server's route table.
            rows = [l.strip().split("\t") for l in f if l.strip()]
            routes = {r[0]: (r[1] if len(r) > 1 else None) for r in rows}
        with open(argv[4], encoding="utf-8") as f:
            pending = {l.strip() for l in f if l.strip() and not l.startswith("#")}
        check_doc(doc, routes, pending)
    elif len(argv) == 6 and argv[1] == "answers":
        run_answers(load(argv[2]), argv[3], argv[4], argv[5])
    elif len(argv) >= 5 and argv[1] == "coverage":
        run_coverage(load(argv[2]), argv[3], argv[4:])
    else:
        print(__doc__, file=sys.stderr)
        return 64
    print("%d problems" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
