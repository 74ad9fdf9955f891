import { createHash } from "node:crypto";
import ssh2 from "ssh2";

// ssh2 is CommonJS: its exports are read from the default export.
const { utils } = ssh2;

import type { SettingsRepository } from "../store/settings.ts";

/** The SSH gateway's two ed25519 keys, shared by every server of a deployment through the store. */
export interface GatewayKeys {
  /** The host key clients see (OpenSSH private key text). */
  hostKey: string;
  /** The key the gateway logs in to sandbox sshd with (OpenSSH private key text). */
  backendKey: string;
  /** The backend key's public half, one authorized_keys line: the `proxy_pubkey` of `/api/v1/ssh/enable`. */
  backendPublicKey: string;
}

/** One authorized_keys line of a private key's public half. */
export function publicKeyLine(privateKey: string, comment: string): string {
  const parsed = utils.parseKey(privateKey);
  if (parsed instanceof Error) throw parsed;
  return `${parsed.type} ${parsed.getPublicSSH().toString("base64")} ${comment}`;
}

/** `SHA256:<base64 without padding>` of a raw public key blob, as OpenSSH prints it. */
export function blobFingerprint(blob: Buffer): string {
  return `SHA256:${createHash("sha256").update(blob).digest("base64").replace(/=+$/, "")}`;
}

/** Reads the gateway's keys from the store, generating each once for the deployment. */
export async function loadGatewayKeys(settings: SettingsRepository): Promise<GatewayKeys> {
  const generate = () => {
    // ssh2 writes about one ed25519 key in 750 that its own parser then rejects ("Malformed OpenSSH private
    // key"): a key is kept only once it reads back.
    for (;;) {
      const key = utils.generateKeyPairSync("ed25519").private;
      if (!(utils.parseKey(key) instanceof Error)) return key;
    }
  };
  const hostKey = await settings.getOrSet("ssh_gateway_host_key", generate());
  const backendKey = await settings.getOrSet("ssh_gateway_backend_key", generate());
  return { hostKey, backendKey, backendPublicKey: publicKeyLine(backendKey, "svc-ssh-gateway") };
}
