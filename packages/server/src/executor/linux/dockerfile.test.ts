// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Dockerfile text has ${VAR} of its own
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { DockerfileError, parseDockerfile, substitute } from "./dockerfile.ts";

describe("Dockerfile reading", () => {
  test("the instructions of a typical Dockerfile become steps", () => {
    const text = [
      "# syntax=docker/dockerfile:1",
      "ARG BASE=python:3.12-slim",
      "FROM ${BASE} AS app",
      "ARG VERSION=1.0",
      'ENV APP_HOME=/srv/app LABEL="v ${VERSION}"',
      "ENV OLD_STYLE value with spaces",
      "WORKDIR $APP_HOME",
      "RUN apt-get update && \\",
      "    apt-get install -y curl   # not a comment inside a command",
      'RUN ["python3", "-c", "print(1)"]',
      "COPY --chown=1000:1000 --chmod=0644 requirements.txt setup.py ./",
      "ADD app.tar.gz /opt/",
      "USER 1000:1000",
      "EXPOSE 8080",
      'ENTRYPOINT ["python3"]',
      "CMD app.py",
      "",
    ].join("\n");
    const { steps, warnings } = parseDockerfile(text, { VERSION: "2.0" });
    assert.deepEqual(
      steps.map((s) => s.kind),
      ["from", "arg", "env", "env", "workdir", "run", "run", "copy", "copy", "user", "entrypoint", "cmd"],
    );
    assert.deepEqual(steps[0], { kind: "from", line: 3, image: "python:3.12-slim" });
    assert.deepEqual(
      steps.splice(1, 1),
      [{ kind: "arg", line: 4, vars: [["VERSION", "2.0"]] }],
      "RUN's environment",
    );
    assert.deepEqual(steps[1], {
      kind: "env",
      line: 5,
      vars: [
        ["APP_HOME", "/srv/app"],
        ["LABEL", "v 2.0"],
      ],
    });
    assert.deepEqual(steps[2], { kind: "env", line: 6, vars: [["OLD_STYLE", "value with spaces"]] });
    assert.deepEqual(steps[3], { kind: "workdir", line: 7, path: "/srv/app" });
    assert.deepEqual(steps[4], {
      kind: "run",
      line: 8,
      command: [
        "/bin/sh",
        "-c",
        "apt-get update &&  apt-get install -y curl   # not a comment inside a command",
      ],
      shell: true,
    });
    assert.deepEqual(steps[5], {
      kind: "run",
      line: 10,
      command: ["python3", "-c", "print(1)"],
      shell: false,
    });
    assert.deepEqual(steps[6], {
      kind: "copy",
      line: 11,
      sources: ["requirements.txt", "setup.py"],
      dest: "./",
      chown: "1000:1000",
      chmod: "0644",
      add: false,
    });
    assert.equal(steps[7].kind === "copy" && steps[7].add, true);
    assert.deepEqual(steps[9], { kind: "entrypoint", line: 15, command: ["python3"], shell: false });
    assert.deepEqual(steps[10], { kind: "cmd", line: 16, command: ["/bin/sh", "-c", "app.py"], shell: true });
    assert.deepEqual(warnings, ["line 14: EXPOSE has no effect on a sandbox"]);
  });

  test("variables substitute as Docker's do; ENV wins over ARG; RUN is left to the shell", () => {
    const vars = new Map([
      ["A", "x"],
      ["EMPTY", ""],
    ]);
    assert.equal(
      substitute("$A ${A} ${MISSING:-d} ${EMPTY:-e} ${A:+set} ${MISSING:+no} \\$A", vars),
      "x x d e set  $A",
    );
    const { steps } = parseDockerfile("FROM alpine\nENV N=env\nARG N=arg\nWORKDIR /w/$N\nRUN echo $N\n");
    assert.deepEqual(steps[2], { kind: "arg", line: 3, vars: [["N", "arg"]] });
    assert.deepEqual(steps[3], { kind: "workdir", line: 4, path: "/w/env" });
    assert.deepEqual(steps[4], { kind: "run", line: 5, command: ["/bin/sh", "-c", "echo $N"], shell: true });
  });

  test("what cannot be built is refused with its line", () => {
    const cases: [string, RegExp][] = [
      ["RUN echo hi", /line 1: RUN before FROM/],
      ["", /needs a FROM/],
      ["FROM a\nFROM b", /line 2: a second FROM/],
      ["FROM a\nCOPY --from=builder /x /y", /line 2: COPY --from/],
      ["FROM a\nADD https://example.com/x /x", /line 2: ADD from a URL/],
      ["FROM a\nFROBNICATE x", /line 2: unknown instruction FROBNICATE/],
      ["FROM a\nCOPY onlyone", /line 2: COPY needs a source and a destination/],
      ["FROM a\nENV =x", /line 2/],
      ["FROM a\nUSER a b", /line 2: USER needs one/],
      ["FROM a\nCOPY --chmod=rwx a b", /not an octal mode/],
      ['FROM a\nRUN ["sh", 1]', /JSON array of strings/],
      ['FROM a\nENV X="unclosed', /unclosed quote/],
    ];
    for (const [text, message] of cases) {
      assert.throws(
        () => parseDockerfile(text),
        (e: unknown) => e instanceof DockerfileError && message.test(e.message),
        text,
      );
    }
  });

  test("a build argument nobody declares is a warning; CRLF files read the same", () => {
    const { steps, warnings } = parseDockerfile("FROM a\r\nRUN true\r\n", { UNUSED: "1" });
    assert.equal(steps.length, 2);
    assert.deepEqual(warnings, ["build argument UNUSED is not declared by an ARG"]);
  });
});
