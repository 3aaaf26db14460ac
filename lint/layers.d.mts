// Types for the parts of lint/layers.mjs that tests read.
export declare const LAYERS: string[][];
export declare const LIGHT_ENTRIES: Record<string, string>;
export declare const layersPlugin: { rules: Record<string, unknown> };
export declare const SEPARATE_ENTRIES: Record<string, string>;
