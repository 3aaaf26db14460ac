// The part of Citation.js (@citation-js/core 0.8, which ships no types) that the RIS reader
// uses: parsing an input through the registered plugins into CSL-JSON records.
declare module "@citation-js/core" {
  export interface CslName {
    family?: string;
    given?: string;
    literal?: string;
    "non-dropping-particle"?: string;
    "dropping-particle"?: string;
    suffix?: string;
  }
  export interface CslDate {
    "date-parts"?: (number | string)[][];
    raw?: string;
    literal?: string;
  }
  export interface CslItem {
    id?: string | number;
    type?: string;
    title?: string;
    abstract?: string;
    author?: CslName[];
    editor?: CslName[];
    issued?: CslDate;
    DOI?: string;
    "container-title"?: string;
    "collection-title"?: string;
    "event-title"?: string;
    event?: string;
    [field: string]: unknown;
  }
  export const plugins: {
    input: {
      chain(input: unknown, options?: { generateGraph?: boolean; forceType?: string; maxChainLength?: number; strict?: boolean }): CslItem[];
    };
  };
}

// Registers the @ris input formats with @citation-js/core when imported.
declare module "@citation-js/plugin-ris";
