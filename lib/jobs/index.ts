// The public surface of lib/jobs: what code outside the folder imports (rule layers/public-surface in
// lint/layers.mjs; the light entries it lists are the exceptions). Its own files import each other by path.
// Importing it registers the built-in stages (./stages), as the app, the CLI and the worker need.
import "./stages";

export { cancelJob, getJobDetail, JobStateError, listJobs, retryJob, toJobView } from "./queue";
export { listStages, registerStage, STAGE_NAME, UnknownStageError, unregisterStage } from "./registry";
export { enqueueStage, JobNotRunnableError, runJobInline, type RunReport } from "./runner";
export { FINISHED_STATUSES, JOB_STATUSES, type JobDetail, type JobStatus, type JobView, type LogLevel } from "./types";
export { runWorker } from "./worker";
