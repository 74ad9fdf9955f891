import { Transform } from "node:stream";
import { ServiceError } from "@svc/contract";

/** Passes a raw body through while it stays within `max` bytes; past that it fails with 413 FILE_TOO_LARGE. */
export function limitBytes(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > max)
        done(new ServiceError("FILE_TOO_LARGE", `the body is larger than the limit of ${max} bytes`));
      else done(null, chunk);
    },
  });
}
