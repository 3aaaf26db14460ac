// The public surface of lib/builds: what code outside the folder imports (rule layers/public-surface in
// lint/layers.mjs; the light entries it lists are the exceptions). Its own files import each other by path.
export {
  type ArtefactInfo,
  type BuildHandle,
  completeBuild,
  failBuild,
  latestBuildWith,
  recordArtefact,
  reopenUnfinishedBuild,
  resumeBuild,
  startBuild,
  writeArtefact,
} from "./build-dir";
export { buildDamage, DamagedBuildError, hasIntactBuildWith, newestIntactBuildWith } from "./integrity";
