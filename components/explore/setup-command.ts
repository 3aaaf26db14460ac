/**
 * The commands a "not ready" answer asks the operator to run, for the explorer's copyable box:
 * the one the server's message names (in backticks: it knows the stage and the corpus), else
 * the whole set-up of a corpus without a build, facet extraction first, both with `--corpus`.
 */
export function setupCommands(message: string, corpus: string): string {
  const named = /`(npm run graft -- [^`]+)`/.exec(message)?.[1];
  if (named) return named;
  return [`npm run graft -- extract --corpus ${corpus}`, `npm run graft -- build --stage graph --corpus ${corpus}`].join("\n");
}
