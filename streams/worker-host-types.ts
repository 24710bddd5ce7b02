/** The type of `#worker-host` (package.json `imports`), whichever runtime's module the condition picks. */
import type { WorkerHost } from './worker-host.js'

export declare const host: WorkerHost
/** Why this runtime has no workers, or null (the same as `host.unavailable`, apart from it so that option checks do not load the host). */
export declare const unavailable: string | null
/** The cores the runtime reports (`host.cores`). */
export declare const cores: () => number
