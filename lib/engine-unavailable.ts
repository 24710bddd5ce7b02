/**
 * `#node-engine` outside the `node` condition (browsers, workerd, bundles for them):
 * engine 'node' needs node:zlib, so loading it fails and the registry reports
 * `ENGINE_UNAVAILABLE`. No bundler or runtime sees a `node:` import through here.
 */
throw new Error("engine 'node' is not part of this build (it needs node:zlib)")
export {}
