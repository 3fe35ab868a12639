// Lowers the scheduling priority of the calling thread, for the worker threads that do
// background CPU work (thread-batches.ts). Plain JavaScript with no imports of the project, so
// that a thread's entry can load it without the loader the sources run under.
//
// On Linux each thread has a nice value of its own, and setpriority(2) on "process" 0 sets the
// calling thread's only, which is what os.setPriority() with no pid calls. Elsewhere (macOS) the
// same call would lower the whole process, requests included, so nothing is changed there.
// Raising a nice value needs no privilege; a failure leaves the thread at its priority.
import { platform, setPriority } from 'node:os';

// Nice 10: when the cores are busy, a thread at nice 0 gets about nine times its share (the
// scheduler's weights, 1024 against 110).
const BACKGROUND_NICE = 10;

export function lowerThreadPriority() {
  if (platform() !== 'linux') return false;
  try {
    setPriority(BACKGROUND_NICE);
    return true;
  } catch {
    return false;
  }
}
