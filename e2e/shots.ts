import path from "node:path";
import { config } from "../lib/config";

/**
 * Where the specs save their screenshots. The committed ones in e2e/screenshots/ (the README
 * shows them) are rewritten only when GRAFT_UPDATE_SCREENSHOTS=1 asks for it; any other run
 * writes to the ignored e2e/.screenshots/, so `npm test` leaves the working tree clean.
 */
export const SHOTS = path.join(import.meta.dirname, config().GRAFT_UPDATE_SCREENSHOTS ? "screenshots" : ".screenshots");
