// Module hooks for test/_threads-decision-child.ts (registered with node:module
// `register`): every module the process loads after registration, its URL posted to the
// port the child passes in, in load order.
let port

export function initialize(data) {
  port = data.port
}

export async function load(url, context, nextLoad) {
  port.postMessage(url)
  return nextLoad(url, context)
}
