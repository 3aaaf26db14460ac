// pdfjs-dist ships no types for its worker module; Graft only hands it to pdfjs as a whole.
declare module "pdfjs-dist/legacy/build/pdf.worker.mjs" {
  export const WorkerMessageHandler: unknown;
}
