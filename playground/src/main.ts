/**
 * The playground page (playground/index.html): choose a codec for your own data, and
 * look inside compressed files, with sluice running in the page's workers. Built by
 * `npm run playground` (playground/build.mjs) into playground/dist/; docs/playground.md.
 */
import { setUpBench } from './bench-panel.js'
import { setUpInspect } from './inspect-panel.js'

setUpBench()
setUpInspect()
document.body.dataset.ready = 'true'
