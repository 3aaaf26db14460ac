// The public surface of lib/db: what code outside the folder imports (rule layers/public-surface in
// lint/layers.mjs; the light entries it lists are the exceptions). Its own files import each other by path.
export { bulkInsert } from "./bulk";
export { createDb, type Db, dbProvider, disconnectDb, getDb } from "./client";
export { dbConfig, pgPoolConfig } from "./config";
export { storeFault, StoreUnavailableError } from "./faults";
