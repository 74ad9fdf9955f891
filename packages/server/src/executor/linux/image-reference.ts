/**
 * # image-reference
 *
 * OCI image references as users write them (`python:3.12-slim`, `ghcr.io/org/app@sha256:…`,
 * `localhost:5000/team/app:v1`), parsed into registry, repository, tag and digest with the normalisation Docker
 * clients apply: a first path component without a dot, a colon or the name `localhost` is not a registry, so
 * the image is on Docker Hub (`docker.io`), where one-component names live under `library/`; no tag and no
 * digest means `latest`.
 *
 * A reference is told from the name of a built-in or operator image by its shape: built-in names are single
 * words, so a reference is anything with a `/`, a `:` or an `@` in it.
 */

export interface ImageReference {
  registry: string;
  repository: string;
  tag: string | null;
  /** `sha256:<64 hex>` when the reference pins one. */
  digest: string | null;
  /** The fully qualified form, e.g. `docker.io/library/python:3.12-slim`. */
  canonical: string;
}

const DOCKER_HUB = "docker.io";
const COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;
const REGISTRY =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9a-fA-F:.]+\])(?::[0-9]{1,5})?$/;
const MAX_LENGTH = 255;

/** Whether an `image` value names an OCI image rather than a built-in or operator image. */
export function isImageReference(image: string): boolean {
  return /[/:@]/.test(image);
}

/** Parses a reference; throws an Error whose message says what is wrong with it. */
export function parseImageReference(text: string): ImageReference {
  if (text.length === 0 || text.length > MAX_LENGTH) {
    throw new Error(`an image reference has 1 to ${MAX_LENGTH} characters`);
  }
  let rest = text;
  let digest: string | null = null;
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) throw new Error(`'${digest}' is not a digest (sha256:<64 hex digits>)`);
  }
  let tag: string | null = null;
  const lastSlash = rest.lastIndexOf("/");
  const colon = rest.lastIndexOf(":");
  if (colon > lastSlash) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag))
      throw new Error(`'${tag}' is not a tag (letters, digits, '_', '.', '-'; at most 128)`);
  }
  const parts = rest.split("/");
  let registry = DOCKER_HUB;
  const first = parts[0];
  if (parts.length > 1 && (first.includes(".") || first.includes(":") || first === "localhost")) {
    registry = first;
    parts.shift();
    if (!REGISTRY.test(registry)) throw new Error(`'${registry}' is not a registry host`);
  }
  if (parts.length === 0 || parts.some((p) => !COMPONENT.test(p))) {
    throw new Error(
      `'${rest}' is not a repository name (lower-case words separated by '/', '.', '_' or '-')`,
    );
  }
  if (registry === "index.docker.io" || registry === "registry-1.docker.io") registry = DOCKER_HUB;
  if (registry === DOCKER_HUB && parts.length === 1) parts.unshift("library");
  if (tag === null && digest === null) tag = "latest";
  const repository = parts.join("/");
  const canonical = `${registry}/${repository}${tag ? `:${tag}` : ""}${digest ? `@${digest}` : ""}`;
  return { registry, repository, tag, digest, canonical };
}

/** The registry's host name without its port or IPv6 brackets, as DNS knows it. */
export function registryHost(registry: string): string {
  if (registry.startsWith("[")) return registry.slice(1, registry.indexOf("]"));
  return registry.replace(/:[0-9]+$/, "");
}

/**
 * The image a sandbox's tree really came from, as a reference that no later push can move: `image` (a reference
 * as the user gave it) pinned to the manifest `digest` its pull got, `registry/repository@digest`. Null when there
 * is nothing to pin: no digest, or `image` is not a registry reference (a built-in or operator image, or an
 * uploaded one, `archive:<name>@<digest>`, which is pinned already).
 */
export function pinImage(image: string | null, digest: string | null | undefined): string | null {
  if (!image || !digest || image.startsWith("archive:") || !isImageReference(image)) return null;
  if (!DIGEST.test(digest)) return null;
  let reference: ImageReference;
  try {
    reference = parseImageReference(image);
  } catch {
    return null;
  }
  return `${reference.registry}/${reference.repository}@${digest}`;
}
