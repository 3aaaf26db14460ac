import path from "node:path";

/**
 * Where the specs save their screenshots. The committed ones in e2e/screenshots/ (the README
 * shows them) are rewritten only when GRAFT_UPDATE_SCREENSHOTS=1 asks for it; any other run
 * writes to the ignored e2e/.screenshots/, so `npm test` leaves the working tree clean.
 */
export const SHOTS = path.join(import.meta.dirname, process.env.GRAFT_UPDATE_SCREENSHOTS === "1" ? "screenshots" : ".screenshots");
