// Builds the tests' default sandbox image when it is missing, the build the first sandbox test would otherwise
// start and wait for (debootstrap: a minute or two, mostly downloads). scripts/test.sh runs it beside the checks
// that come before the tests; a test that needs the image meanwhile waits on the build's lock, and if this build
// fails, that test builds the image itself. Does nothing where sandbox tests cannot run.
import { missingPrerequisite, SANDBOX_TOOLS, testImageRootfs } from "@svc/server/test-support";

if (missingPrerequisite(SANDBOX_TOOLS) === undefined)
  console.log(`default image: ${await testImageRootfs()}`);
