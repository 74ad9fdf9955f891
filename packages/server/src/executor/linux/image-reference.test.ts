import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isImageReference, parseImageReference, pinImage, registryHost } from "./image-reference.ts";

const DIGEST = `sha256:${"ab".repeat(32)}`;

describe("image references", () => {
  test("normalised as Docker clients do", () => {
    const cases: [string, string][] = [
      ["python:3.12-slim", "docker.io/library/python:3.12-slim"],
      ["ubuntu", "docker.io/library/ubuntu:latest"],
      ["org/app", "docker.io/org/app:latest"],
      ["index.docker.io/org/app:v1", "docker.io/org/app:v1"],
      ["ghcr.io/org/team/app:1.0", "ghcr.io/org/team/app:1.0"],
      ["localhost/app", "localhost/app:latest"],
      ["127.0.0.1:5000/team/app:v1", "127.0.0.1:5000/team/app:v1"],
      [`quay.io/org/app@${DIGEST}`, `quay.io/org/app@${DIGEST}`],
      [`quay.io/org/app:v2@${DIGEST}`, `quay.io/org/app:v2@${DIGEST}`],
      ["[::1]:5000/app:x", "[::1]:5000/app:x"],
    ];
    for (const [text, canonical] of cases) assert.equal(parseImageReference(text).canonical, canonical, text);
    const parsed = parseImageReference("127.0.0.1:5000/team/app:v1");
    assert.deepEqual(
      { ...parsed, canonical: undefined },
      { registry: "127.0.0.1:5000", repository: "team/app", tag: "v1", digest: null, canonical: undefined },
    );
    assert.equal(registryHost("127.0.0.1:5000"), "127.0.0.1");
    assert.equal(registryHost("[::1]:5000"), "::1");
  });

  test("malformed references are refused with a reason", () => {
    for (const [text, reason] of [
      ["", /1 to 255/],
      ["Python:3", /repository name/],
      ["app:bad tag", /not a tag/],
      ["app@sha256:123", /not a digest/],
      ["a//b", /repository name/],
      ["ex ample.com/app", /registry host|repository name/],
      ["x".repeat(300), /1 to 255/],
      ["../etc/passwd:x", /registry host/],
      ["app/../../x", /repository name/],
    ] as const) {
      assert.throws(() => parseImageReference(text), reason, text);
    }
  });

  test("a reference pinned to the digest its pull got: the tag dropped, nothing pinned for other images", () => {
    const digest = `sha256:${"ab".repeat(32)}`;
    const other = `sha256:${"cd".repeat(32)}`;
    assert.equal(pinImage("python:3.12-slim", digest), `docker.io/library/python@${digest}`);
    assert.equal(pinImage("localhost:5000/team/app", digest), `localhost:5000/team/app@${digest}`);
    assert.equal(pinImage(`ghcr.io/org/app:v1@${other}`, other), `ghcr.io/org/app@${other}`);
    assert.equal(pinImage("python:3.12-slim", null), null);
    assert.equal(pinImage("default", digest), null);
    assert.equal(pinImage(null, digest), null);
    assert.equal(pinImage(`archive:mine@${digest}`, digest), null, "an uploaded image is pinned already");
    assert.equal(pinImage("python:3.12-slim", "sha256:short"), null);
  });

  test("built-in image names are not references", () => {
    assert.equal(isImageReference("default"), false);
    assert.equal(isImageReference("my-image"), false);
    assert.equal(isImageReference("python:3.12"), true);
    assert.equal(isImageReference("org/app"), true);
  });
});
