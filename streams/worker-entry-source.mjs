// The worker module when sluice runs from its TypeScript sources (its tests, `tsx`):
// registers tsx's loader in the worker thread (Node does not carry a parent's loader
// hooks into workers), then loads the TypeScript entry. Builds never use this file:
// they replace streams/worker-file.ts with their own `sluice-worker.js`.
import { register } from 'tsx/esm/api'

register()
await import('./worker-entry.ts')
