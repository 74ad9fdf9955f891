import type { IncomingHttpHeaders } from "node:http";
import type { Readable } from "node:stream";
import { Busboy } from "@fastify/busboy";
import {
  type documentRoutes,
  Labels,
  ServiceError,
  UPLOAD_FILE_PARTS,
  UPLOAD_LABELS_PART,
} from "@svc/contract";
import type { FastifyInstance } from "fastify";
import { Compile } from "typebox/compile";
import type { Handlers } from "../api/routes.ts";
import { newId, toRfc3339 } from "../store/ids.ts";
import { type BlobStore, BlobTooLargeError, type StoredBlob } from "./blob-store.ts";
import { type FileRepository, toFileMetadata } from "./files.ts";
import { mimeTypeOf } from "./mime-types.ts";

type FileRoutes = Pick<
  typeof documentRoutes,
  "uploadDocumentFile" | "listDocumentFiles" | "getDocumentFileMetadata" | "deleteDocumentFile"
>;

/** Room for the multipart framing and the labels part around the file itself. */
const MULTIPART_OVERHEAD_BYTES = 256 * 1024;
const labelsCheck = Compile(Labels);

/**
 * Multipart bodies are not parsed by Fastify: the upload handler streams them from the request itself, so a
 * file is never held whole in memory and the size limit applies while it arrives.
 */
export function acceptStreamedMultipart(app: FastifyInstance): void {
  app.addContentTypeParser("multipart/form-data", (_request, _payload, done) => done(null));
}

interface Upload {
  blob: StoredBlob;
  fileName: string | null;
  declaredType: string | null;
  labels: Labels | null;
}

function invalid(message: string): ServiceError {
  return new ServiceError("INVALID_MULTIPART", message);
}

function tooLarge(maxBytes: number): ServiceError {
  return new ServiceError("FILE_TOO_LARGE", `The file is larger than the limit of ${maxBytes} bytes`);
}

/**
 * Reads an upload form: one file in the part `file` or `file_bytes`, streamed into the blob store, and an
 * optional `labels` part holding a JSON object of strings. Any other part is refused.
 */
function readUpload(
  raw: Readable,
  headers: IncomingHttpHeaders,
  blobs: BlobStore,
  maxBytes: number,
): Promise<Upload> {
  return new Promise<Upload>((resolve, reject) => {
    let busboy: ReturnType<typeof Busboy>;
    try {
      busboy = Busboy({
        headers: headers as IncomingHttpHeaders & { "content-type": string },
        isPartAFile: (field, _type, fileName) =>
          fileName !== undefined || (UPLOAD_FILE_PARTS as readonly string[]).includes(field ?? ""),
        limits: {
          files: 1,
          fileSize: maxBytes + 1,
          fields: 5,
          fieldSize: 64 * 1024,
          parts: 6,
          headerPairs: 100,
        },
      });
    } catch (error) {
      reject(invalid(`The multipart body cannot be read: ${(error as Error).message}`));
      return;
    }
    let failed = false;
    let saving: Promise<StoredBlob> | null = null;
    let fileName: string | null = null;
    let declaredType: string | null = null;
    let labels: Labels | null = null;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      raw.unpipe(busboy);
      // The rest of the body is read and dropped, so the client gets the answer rather than a reset connection.
      raw.resume();
      if (saving) saving.then((blob) => blobs.delete(blob.key)).catch(() => undefined);
      reject(error);
    };
    busboy.on("file", (field, stream, name, _encoding, type) => {
      if (!(UPLOAD_FILE_PARTS as readonly string[]).includes(field)) {
        stream.resume();
        return fail(
          invalid(`Unexpected file part ${JSON.stringify(field)}; send the file in the part "file"`),
        );
      }
      if (saving) {
        stream.resume();
        return fail(invalid("Send one file per upload"));
      }
      // A broken body errors the file stream, which ends the blob write below; the error is reported from there.
      let streamError: Error | null = null;
      stream.on("error", (error) => {
        streamError ??= error;
      });
      fileName = name ? name.slice(0, 255) : null;
      declaredType = type || null;
      saving = blobs.put(stream, { maxBytes });
      saving.catch((error) => {
        stream.resume();
        if (error instanceof BlobTooLargeError) fail(tooLarge(maxBytes));
        else if (streamError) fail(invalid(`The multipart body is not valid: ${streamError.message}`));
        else fail(error);
      });
    });
    busboy.on("field", (field, value, _nameTruncated, valueTruncated) => {
      if (field !== UPLOAD_LABELS_PART) {
        return fail(invalid(`Unexpected part ${JSON.stringify(field)}; the parts are "file" and "labels"`));
      }
      let parsed: unknown;
      try {
        if (valueTruncated) throw new Error("too long");
        parsed = JSON.parse(value);
      } catch {
        return fail(invalid('The "labels" part must be a JSON object'));
      }
      if (!labelsCheck.Check(parsed)) {
        return fail(invalid('The "labels" part must be a JSON object of at most 50 string values'));
      }
      labels = parsed;
    });
    busboy.on("filesLimit", () => fail(invalid("Send one file per upload")));
    busboy.on("partsLimit", () => fail(invalid("The upload has too many parts")));
    busboy.on("fieldsLimit", () => fail(invalid("The upload has too many parts")));
    busboy.on("error", (error) =>
      fail(invalid(`The multipart body is not valid: ${(error as Error).message}`)),
    );
    busboy.on("finish", async () => {
      if (failed) return;
      if (!saving) return fail(invalid('The upload has no file; send it in the part "file"'));
      try {
        const blob = await saving;
        if (failed) return;
        resolve({ blob, fileName, declaredType, labels });
      } catch {
        // Already reported by the file handler.
      }
    });
    raw.on("error", (error) => fail(invalid(`The upload was interrupted: ${error.message}`)));
    raw.pipe(busboy);
  });
}

export function fileHandlers(deps: {
  files: FileRepository;
  blobs: BlobStore;
  maxFileBytes: number;
  now: () => number;
}): Handlers<FileRoutes> {
  const { files, blobs, maxFileBytes } = deps;
  return {
    async uploadDocumentFile({ request, reply, auth }) {
      const type = request.headers["content-type"] ?? "";
      if (!/^multipart\/form-data\b/i.test(type)) {
        throw invalid("Upload the file as multipart/form-data");
      }
      const declared = Number(request.headers["content-length"]);
      if (Number.isFinite(declared) && declared > maxFileBytes + MULTIPART_OVERHEAD_BYTES) {
        reply.header("connection", "close");
        throw tooLarge(maxFileBytes);
      }
      let upload: Upload;
      try {
        upload = await readUpload(request.raw, request.headers, blobs, maxFileBytes);
      } catch (error) {
        if (error instanceof ServiceError && error.code === "FILE_TOO_LARGE")
          reply.header("connection", "close");
        throw error;
      }
      if (upload.blob.size === 0) {
        await blobs.delete(upload.blob.key);
        throw new ServiceError("INVALID_FILE", "The file is empty");
      }
      const record = {
        id: newId("file"),
        projectId: auth.projectId,
        fileName: upload.fileName,
        mimeType: mimeTypeOf(upload.fileName, upload.declaredType),
        size: upload.blob.size,
        sha256: upload.blob.sha256,
        labels: upload.labels,
        blobKey: upload.blob.key,
        createdAt: deps.now(),
      };
      try {
        await files.insert(record);
      } catch (error) {
        await blobs.delete(upload.blob.key).catch(() => undefined);
        throw error;
      }
      return { file_id: record.id, created_at: toRfc3339(record.createdAt) };
    },
    listDocumentFiles: ({ query, auth }) => files.list(auth.projectId, query),
    async getDocumentFileMetadata({ params, auth }) {
      const file = await files.get(auth.projectId, params.file_id);
      if (!file) throw new ServiceError("ENTITY_NOT_FOUND", `No file ${params.file_id}`);
      return toFileMetadata(file);
    },
    async deleteDocumentFile({ params, auth }) {
      const file = await files.delete(auth.projectId, params.file_id);
      if (!file) throw new ServiceError("ENTITY_NOT_FOUND", `No file ${params.file_id}`);
      await blobs.delete(file.blobKey);
    },
  };
}
