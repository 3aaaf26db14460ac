// The public surface of lib/jobs: what code outside the folder imports (rule layers/public-surface in
// lint/layers.mjs; the light entries it lists are the exceptions). Its own files import each other by path.
// The built-in stages register from their own entry, `import "@/lib/jobs/stages"` (SEPARATE_ENTRIES):
// the worker, the CLI and the route that enqueues need them; viewing, cancelling or retrying a job
// does not, and would load every stage's imports with them.

export { cancelJob, getJobDetail, JobStateError, listJobs, retryJob, toJobView } from "./queue";
export { listStages, registerStage, STAGE_NAME, UnknownStageError, unregisterStage } from "./registry";
export { enqueueStage, JobNotRunnableError, runJobInline, type RunReport } from "./runner";
export { FINISHED_STATUSES, JOB_STATUSES, type JobDetail, type JobStatus, type JobView, type LogLevel } from "./types";
export { runWorker } from "./worker";
