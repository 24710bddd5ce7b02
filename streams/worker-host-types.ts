/** The type of `#worker-host` (package.json `imports`), whichever runtime's module the condition picks. */
import type { WorkerHost } from './worker-host.js'

export declare const host: WorkerHost
