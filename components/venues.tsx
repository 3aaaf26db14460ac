import { shortVenue } from "./format";

// Venue filters list each stored venue (the filter matches it exactly), but proceedings titles are
// long and differ only at the end ("…, Volume 1" … "…, Volume 7"): cut to a fixed width they read
// as identical entries. Venues of a known series are grouped under its short name (<optgroup>)
// and labelled by what tells them apart (volume, year, edition, track); the rest keep their name.

export interface VenueCount {
  venue: string;
  papers: number;
}

export interface VenueOption extends VenueCount {
  label: string;
}

export interface VenueGroup {
  /** The series ("ACL", "TACL (Transactions of the ACL)"), or null for venues of no known series. */
  series: string | null;
  papers: number;
  options: VenueOption[];
}

const ACL = "the Association for Computational Linguistics";

/** Known series: a pattern on the venue without "Proceedings of (the)", and the label it leaves. */
const SERIES: { series: string; short: string; pattern: RegExp; label: (m: RegExpMatchArray) => string }[] = [
  { series: "TACL (Transactions of the ACL)", short: "TACL", pattern: new RegExp(`^Transactions of ${ACL},?\\s*(.*)$`, "i"), label: (m) => m[1] },
  { series: "Computational Linguistics (journal)", short: "CL journal", pattern: /^Computational Linguistics,\s*(.*)$/i, label: (m) => m[1] },
  {
    series: "ACL (Annual Meeting)",
    short: "ACL",
    pattern: new RegExp(`^(\\w+) Annual Meeting of ${ACL}\\s*(.*)$`, "i"),
    label: (m) => `${m[1]} meeting ${m[2]}`,
  },
  { series: "ACL (Annual Meeting)", short: "ACL", pattern: /^ACL (\d{4}),?\s*(.*)$/i, label: (m) => `${m[1]} ${m[2]}` },
  {
    series: "EMNLP",
    short: "EMNLP",
    pattern: /^(\d{4}) Conference on Empirical Methods in Natural Language Processing\s*(.*)$/i,
    label: (m) => `${m[1]} ${m[2]}`,
  },
  {
    series: "NAACL",
    short: "NAACL",
    pattern: new RegExp(`^(\\d{4}) Conference of the North American Chapter of ${ACL}(?::\\s*Human Language Technologies)?,?\\s*(.*)$`, "i"),
    label: (m) => `${m[1]} ${m[2]}`,
  },
  {
    series: "EACL",
    short: "EACL",
    pattern: new RegExp(`^(\\w+) Conference of the European Chapter of ${ACL}:?\\s*(.*)$`, "i"),
    label: (m) => `${m[1]} conference ${m[2]}`,
  },
  {
    series: "COLING",
    short: "COLING",
    pattern: /^(?:COLING (\d{4}), )?(?:the )?(\w+) International Conference on Computational Linguistics:?\s*(.*)$/i,
    label: (m) => [`${m[2]} conference`, m[1] && `(${m[1]})`, m[3]].filter(Boolean).join(" "),
  },
  {
    series: "LREC",
    short: "LREC",
    pattern: /^(\w+) International Conference on Language Resources and Evaluation\s*(.*)$/i,
    label: (m) => `${m[1]} conference ${m[2]}`,
  },
  {
    series: "CoNLL",
    short: "CoNLL",
    pattern: /^(?:(\w+) Conference on Computational Natural Language Learning|CoNLL (\d{4}) Shared Task:?)\s*(.*)$/i,
    label: (m) => [m[1] ? `${m[1]} conference` : `${m[2]} shared task`, m[3]].filter(Boolean).join(" "),
  },
  {
    series: "IJCNLP",
    short: "IJCNLP",
    pattern: /^(\w+) International Joint Conference on Natural Language Processing\s*(.*)$/i,
    label: (m) => `${m[1]} conference ${m[2]}`,
  },
  {
    series: "WMT (Conference on Machine Translation)",
    short: "WMT",
    pattern: /^(\w+) Conference on Machine Translation:?\s*(.*)$/i,
    label: (m) => `${m[1]} conference ${m[2]}`,
  },
  { series: "SemEval", short: "SemEval", pattern: /^(\w+) International Workshop on Semantic Evaluation\s*(.*)$/i, label: (m) => `${m[1]} workshop ${m[2]}` },
];

const MAX_LABEL = 80;

function tidy(label: string): string {
  return label
    .replace(/\s+/g, " ")
    .replace(/\band the \w+ International Joint Conference on Natural Language Processing\b/i, "with IJCNLP")
    .replace(/\s*\(EMNLP-IJCNLP\)/i, "")
    .replace(/\s+([:,])/g, "$1")
    .replace(/^[\s,:–-]+|[\s,:–-]+$/g, "")
    .replace(new RegExp(ACL, "gi"), "the ACL")
    .replace(/^./, (c) => c.toUpperCase());
}

/** Shortens the middle of a long name, so its distinguishing end stays visible. */
function clip(label: string): string {
  if (label.length <= MAX_LABEL) return label;
  const head = Math.ceil((MAX_LABEL - 1) * 0.6);
  return `${label.slice(0, head).trimEnd()}…${label.slice(label.length - (MAX_LABEL - 1 - head)).trimStart()}`;
}

/**
 * The series of a venue and its label: the series' short name and what tells the venue apart
 * within it ("TACL · Volume 3"), so the label reads alone in a closed <select> too.
 */
export function venueSeries(venue: string): { series: string | null; label: string } {
  const bare = venue.trim().replace(/^proceedings of (the )?/i, "");
  for (const s of SERIES) {
    const m = bare.match(s.pattern);
    if (m) return { series: s.series, label: `${s.short} · ${tidy(s.label(m)) || tidy(bare)}` };
  }
  return { series: null, label: tidy(shortVenue(venue)) };
}

const ORDINALS = [
  "first",
  "second",
  "third",
  "fourth",
  "fifth",
  "sixth",
  "seventh",
  "eighth",
  "ninth",
  "tenth",
  "eleventh",
  "twelfth",
  "thirteenth",
  "fourteenth",
  "fifteenth",
  "sixteenth",
  "seventeenth",
  "eighteenth",
  "nineteenth",
  "twentieth",
];

/** Year, edition ("57th", "Ninth") and volume read from a venue: what "newest first" sorts by (0: none). */
function recency(venue: string): [number, number, number] {
  const year = /\b(19|20)\d{2}\b/.exec(venue)?.[0] ?? (/'(\d{2})\)/.exec(venue) ? `20${/'(\d{2})\)/.exec(venue)![1]}` : null);
  const digits = /\b(\d+)(?:st|nd|rd|th)\b/i.exec(venue)?.[1];
  const word = new RegExp(`\\b(${ORDINALS.join("|")})\\b`, "i").exec(venue)?.[1];
  const edition = digits ? Number(digits) : word ? ORDINALS.indexOf(word.toLowerCase()) + 1 : 0;
  const volume = Number(/\bVolume (\d+)/i.exec(venue)?.[1] ?? 0);
  return [year ? Number(year) : 0, edition, volume];
}

/** Newest first where both venues say when (year, else edition, else journal volume); then by label. */
function byNewestFirst(a: VenueOption, b: VenueOption): number {
  const ra = recency(a.venue);
  const rb = recency(b.venue);
  if (ra[0] && rb[0] && ra[0] !== rb[0]) return rb[0] - ra[0];
  if (ra[1] && rb[1] && ra[1] !== rb[1]) return rb[1] - ra[1];
  if (!ra[0] && !rb[0] && !ra[1] && !rb[1] && ra[2] !== rb[2]) return rb[2] - ra[2];
  return a.label.localeCompare(b.label, "en", { numeric: true });
}

/**
 * The venue filter's options: known series first (most papers first), each venue labelled within
 * its series, newest first; then the other venues by paper count. Labels within a group are
 * unique (a clipped label that would repeat keeps its full text).
 */
export function venueGroups(venues: readonly VenueCount[]): VenueGroup[] {
  const groups = new Map<string | null, VenueGroup>();
  for (const v of venues) {
    const { series, label } = venueSeries(v.venue);
    const g = groups.get(series) ?? { series, papers: 0, options: [] };
    g.papers += v.papers;
    g.options.push({ ...v, label });
    groups.set(series, g);
  }
  for (const g of groups.values()) {
    const clipped = g.options.map((o) => clip(o.label));
    const seen = new Map<string, number>();
    for (const c of clipped) seen.set(c, (seen.get(c) ?? 0) + 1);
    g.options.forEach((o, i) => (o.label = seen.get(clipped[i])! > 1 ? o.label : clipped[i]));
    if (g.series !== null) g.options.sort(byNewestFirst);
    else g.options.sort((a, b) => b.papers - a.papers || a.label.localeCompare(b.label));
  }
  const known = [...groups.values()].filter((g) => g.series !== null).sort((a, b) => b.papers - a.papers || a.series!.localeCompare(b.series!));
  const other = groups.get(null);
  return other ? [...known, other] : known;
}

/** The options of a venue <select>: grouped by series, each with its paper count. */
export function VenueOptions({ venues, selected }: { venues: readonly VenueCount[]; selected?: string }) {
  const list = selected && !venues.some((v) => v.venue === selected) ? [{ venue: selected, papers: 0 }, ...venues] : venues;
  return (
    <>
      {venueGroups(list).map((g) => {
        const options = g.options.map((o) => (
          <option key={o.venue} value={o.venue} title={o.venue}>
            {o.label}
            {o.papers > 0 ? ` (${o.papers})` : ""}
          </option>
        ));
        return g.series === null ? (
          <optgroup key="(other)" label={venues.length > g.options.length ? "Other venues" : "Venues"}>
            {options}
          </optgroup>
        ) : (
          <optgroup key={g.series} label={`${g.series} · ${g.papers}`}>
            {options}
          </optgroup>
        );
      })}
    </>
  );
}
