"use client";

import Link from "next/link";
import type { Core, ElementDefinition, LayoutOptions, NodeSingular, StylesheetJson } from "cytoscape";
import { useCallback, useEffect, useMemo, useRef, useState, type CSSProperties } from "react";
import { FACETS, type Facet } from "@/lib/corpus/types";
import { fileSlug } from "@/lib/export";
import type { LibraryMatch, PaperIdentity, MultiSeedResult, RelatedResult } from "@/lib/query";
import { downloadBlob } from "../download";
import { FACET_STYLES, FacetLetter, FacetRankChip, facetVars } from "../facets";
import { formatAuthors, paperHref, shortVenue } from "../format";
import { LibraryBadge } from "../explore/library-panel";
import { useLineage } from "../explore/lineage-view";
import { buttonClass, Icon, overlayInputClass, Segmented, Spinner } from "../ui";
import {
  addResults,
  burstPositions,
  citationSize,
  edgeWidth,
  layoutSprings,
  facetPie,
  fromResult,
  fromSeedResult,
  nodeFacets,
  relativeWeights,
  ringOf,
  shortTitle,
  visibleNodes,
  yearColour,
  yearRange,
  type GraphModel,
  type GraphNode,
} from "./graph-model";

// The typed graph view (cytoscape, loaded on demand): the query in the centre, related papers
// around it, one edge per credited facet in the facet's colour with width by weight. Facet
// toggles, hover cards, click to select (open the paper or expand its neighbourhood, also by
// double-click), force-directed or concentric-by-rank layouts, zoom/fit and PNG export. The
// list beside the canvas makes every node reachable from the keyboard.

type LayoutName = "cose" | "concentric";

/** Labels are drawn for this many best-ranked papers; the rest show theirs on hover or selection. */
const LABELLED = 12;

export interface RelatedGraphProps {
  /** One query's results, or those of several seeds at once (each seed a centre). */
  result: RelatedResult | MultiSeedResult;
  /** Related papers of a corpus paper, for expanding a node; absent: nodes cannot be expanded. */
  expand?: (paperId: string) => Promise<RelatedResult>;
  height?: number;
  large?: boolean;
  /** Name used for the PNG file. */
  name?: string;
  /** The reader's library: its papers are marked, and hidden when `hide` (the query never is). */
  library?: { markOf: (p: PaperIdentity) => LibraryMatch | null; hide: boolean };
}

// eslint-disable-next-line max-lines-per-function -- one cytoscape instance: its effects (create, sync elements, facet filter, styling, selection, expand) share its refs and run in declaration order
export function RelatedGraph({ result, expand, height = 600, large = false, name, library }: RelatedGraphProps) {
  const [model, setModel] = useState<GraphModel>(() => ("query" in result ? fromResult(result) : fromSeedResult(result)));
  const [facets, setFacets] = useState<Set<Facet>>(() => new Set(FACETS));
  const [layout, setLayout] = useState<LayoutName>("cose");
  const [selected, setSelected] = useState<string | null>(null);
  const [hover, setHover] = useState<{ id: string; x: number; y: number } | null>(null);
  const [expanding, setExpanding] = useState<string | null>(null);
  const [expandError, setExpandError] = useState<string | null>(null);
  const [ready, setReady] = useState(false);
  const [loadError, setLoadError] = useState<string | null>(null);
  const container = useRef<HTMLDivElement>(null);
  const cyRef = useRef<Core | null>(null);
  const layoutRef = useRef(layout);
  const expandRef = useRef<(id: string) => Promise<void>>(async () => {});
  const nodeById = useMemo(() => new Map(model.nodes.map((n) => [n.id, n])), [model]);
  const visible = useMemo(() => visibleNodes(model, facets), [model, facets]);
  const [bySize, setBySize] = useState(false);
  const [byYear, setByYear] = useState(false);
  const marks = useMemo(() => {
    const out = new Map<string, LibraryMatch>();
    for (const n of model.nodes) {
      const m = n.depth > 0 && library ? library.markOf({ externalId: n.id, title: n.title, year: n.year }) : null;
      if (m) out.set(n.id, m);
    }
    return out;
  }, [model, library]);
  const hiddenByLibrary = library?.hide ? marks : null;
  // In-corpus citation counts (node size) of every graph node; the query only when it is one
  // (several seeds are corpus papers).
  const queryInGraph = "query" in result ? result.query.inGraph : true;
  const countIds = useMemo(() => (bySize ? model.nodes.filter((n) => n.depth > 0 || queryInGraph).map((n) => n.id) : []), [bySize, model, queryInGraph]);
  const citations = useLineage(result.corpus, countIds, []);
  const counts = bySize ? citations.data?.citationCounts : undefined;
  const years = useMemo(() => yearRange(model.nodes.filter((n) => n.depth > 0)), [model]);

  const runLayout = useCallback((cy: Core, name: LayoutName, randomize: boolean) => {
    const options: LayoutOptions =
      name === "concentric"
        ? ({
            name: "concentric",
            concentric: (n: { data: (k: string) => number }) => n.data("ring"),
            levelWidth: () => 1,
            minNodeSpacing: 34,
            animate: false,
            fit: true,
            padding: 30,
            eles: cy.elements(":visible"),
          } as LayoutOptions)
        : ({
            name: "cose",
            animate: false,
            randomize,
            fit: true,
            padding: 30,
            // Strong relations pull papers closer: edge length shrinks with the weight.
            idealEdgeLength: (e: { data: (k: string) => number }) => e.data("length"),
            nodeRepulsion: () => 40000,
            edgeElasticity: () => 80,
            gravity: 0.15,
            numIter: 500,
            nodeDimensionsIncludeLabels: false,
            nodeOverlap: 12,
            // One spring per pair of papers (see layoutSprings), not one per facet edge.
            eles: cy.nodes(":visible").union(cy.edges(":visible[?spring]")),
          } as LayoutOptions);
    const t0 = performance.now();
    cy.layout(options).run();
    // Layouts run synchronously (animate: false); the time is exposed for the e2e tests.
    container.current?.setAttribute("data-layout-ms", String(Math.round(performance.now() - t0)));
  }, []);

  // ── create cytoscape once ──
  useEffect(() => {
    let cancelled = false;
    let cy: Core | null = null;
    import("cytoscape")
      .then(({ default: cytoscape }) => {
        if (cancelled || !container.current) return;
        cy = cytoscape({
          container: container.current,
          style: STYLE,
          minZoom: 0.15,
          maxZoom: 4,
          boxSelectionEnabled: false,
          // Faster redraws while panning and zooming large graphs.
          textureOnViewport: true,
          hideEdgesOnViewport: false,
          pixelRatio: "auto",
        });
        cyRef.current = cy;
        // For the e2e tests: find a node's position on screen and click it like a user.
        (container.current as HTMLDivElement & { __cy?: Core }).__cy = cy;
        cy.on("mouseover", "node", (e) => {
          const p = e.target.renderedPosition();
          e.target.addClass("hover");
          setHover({ id: e.target.id(), x: p.x, y: p.y });
        });
        cy.on("mouseout", "node", (e) => {
          e.target.removeClass("hover");
          setHover(null);
        });
        cy.on("viewport", () => setHover(null));
        cy.on("tap", "node", (e) => setSelected(e.target.id()));
        cy.on("tap", (e) => {
          if (e.target === cy) setSelected(null);
        });
        cy.on("dbltap", "node", (e) => {
          const id = e.target.id();
          setSelected(id);
          void expandRef.current(id);
        });
        setReady(true);
      })
      .catch((err: unknown) => setLoadError(err instanceof Error ? err.message : String(err)));
    return () => {
      cancelled = true;
      cy?.destroy();
      cyRef.current = null;
    };
  }, []);

  // ── sync elements with the model ──
  useEffect(() => {
    const cy = cyRef.current;
    if (!cy || !ready) return;
    const rel = relativeWeights(model.edges);
    const springs = layoutSprings(model.edges, rel);
    const fresh: ElementDefinition[] = [];
    const labelled = new Set(
      model.nodes
        .filter((n) => n.depth === 1)
        .sort((a, b) => a.rank - b.rank)
        .slice(0, LABELLED)
        .map((n) => n.id),
    );
    for (const n of model.nodes) {
      const pie = facetPie(model, n.id);
      const data = {
        id: n.id,
        label: n.seed === undefined ? shortTitle(n.title) : `Seed ${n.seed + 1}: ${shortTitle(n.title)}`,
        ring: ringOf(n),
        size: nodeSize(n),
        p1: pie.problems,
        p2: pie.methods,
        p3: pie.results,
        p4: pie.contributions,
      };
      const el = cy.getElementById(n.id);
      if (el.nonempty()) el.data(data);
      else fresh.push({ group: "nodes", data, classes: n.seed !== undefined ? "center seed" : n.depth === 0 ? "center" : n.depth > 1 ? "outer" : "" });
    }
    for (const e of model.edges) {
      if (cy.getElementById(e.id).nonempty()) continue;
      fresh.push({
        group: "edges",
        data: { id: e.id, source: e.source, target: e.target, color: FACET_STYLES[e.facet].color, weight: e.weight, facet: e.facet },
      });
    }
    const first = cy.nodes().empty();
    cy.batch(() => {
      cy.add(fresh);
      cy.nodes().forEach((n) => {
        n.toggleClass("labelled", labelled.has(n.id()) || n.hasClass("center"));
      });
      // Widths and springs rescale as expansions add weights.
      cy.edges().forEach((e) => {
        const length = springs.get(e.id());
        e.data({ width: edgeWidth(rel.get(e.id()) ?? 0.5), spring: length !== undefined, length: length ?? 0 });
      });
    });
    if (first) runLayout(cy, layoutRef.current, true);
    else if (fresh.some((d) => d.group === "nodes")) {
      // An expansion: new nodes burst out of the node they came from; the rest stays put (a
      // global force layout over 200 nodes takes seconds; the Force button still runs one).
      if (layoutRef.current === "concentric") runLayout(cy, "concentric", false);
      else {
        const centre = cy.getElementById(model.centerId).position();
        const byAnchor = new Map<string, string[]>();
        for (const def of fresh) {
          if (def.group !== "nodes") continue;
          const id = def.data.id!;
          const anchor = model.edges.find((e) => e.target === id)?.source ?? model.centerId;
          byAnchor.set(anchor, [...(byAnchor.get(anchor) ?? []), id]);
        }
        for (const [anchor, ids] of byAnchor) {
          const at = burstPositions(cy.getElementById(anchor).position(), centre, ids.length);
          ids.forEach((id, i) => cy.getElementById(id).position(at[i]));
        }
        cy.animate({ fit: { eles: cy.elements(":visible"), padding: 30 } }, { duration: 200 });
      }
    }
    container.current?.setAttribute("data-nodes", String(cy.nodes().length));
    container.current?.setAttribute("data-ready", "true");
  }, [model, ready, runLayout]);

  // ── facet toggles hide edges, and papers no visible edge reaches ──
  useEffect(() => {
    const cy = cyRef.current;
    if (!cy || !ready) return;
    cy.batch(() => {
      cy.edges().forEach((e) => {
        e.toggleClass("hidden", !facets.has(e.data("facet") as Facet));
      });
      cy.nodes().forEach((n) => {
        n.toggleClass("hidden", !visible.has(n.id()) || Boolean(hiddenByLibrary?.has(n.id())));
      });
    });
  }, [facets, visible, hiddenByLibrary, ready, model]);

  // ── size by citations, colour by year, the library's marks ──
  useEffect(() => {
    const cy = cyRef.current;
    if (!cy || !ready) return;
    const max = counts ? Math.max(0, ...Object.values(counts)) : 0;
    cy.batch(() => {
      cy.nodes().forEach((n) => {
        const node = nodeById.get(n.id());
        if (!node || node.depth === 0) return;
        const count = counts?.[node.id];
        n.data({
          csize: count === undefined ? nodeSize(node) : citationSize(count, max),
          ycolor: years ? yearColour(node.year, years.min, years.max) : "#d4d4d8",
        });
        n.toggleClass("by-citations", count !== undefined);
        n.toggleClass("by-year", byYear);
        n.toggleClass("in-library", marks.has(node.id));
      });
    });
    container.current?.setAttribute("data-size-by", counts ? "citations" : "rank");
  }, [counts, byYear, years, marks, nodeById, ready, model]);

  // ── selection: highlight the node's neighbourhood ──
  useEffect(() => {
    const cy = cyRef.current;
    if (!cy || !ready) return;
    cy.batch(() => {
      cy.elements().removeClass("faded selected-node");
      if (!selected) return;
      const n = cy.getElementById(selected);
      if (n.empty()) return;
      n.addClass("selected-node");
      cy.elements().not(n.closedNeighborhood()).addClass("faded");
    });
  }, [selected, ready, model]);

  useEffect(() => {
    layoutRef.current = layout;
    const cy = cyRef.current;
    if (cy && ready && cy.nodes().nonempty()) runLayout(cy, layout, layout === "cose");
  }, [layout, ready, runLayout]);

  const doExpand = useCallback(
    async (id: string) => {
      if (!expand || expanding || model.expanded.includes(id) || !nodeById.get(id)?.linkable) return;
      setExpanding(id);
      setExpandError(null);
      try {
        const more = await expand(id);
        setModel((m) => addResults(m, id, more));
      } catch (err) {
        setExpandError(err instanceof Error ? err.message : String(err));
      } finally {
        setExpanding(null);
      }
    },
    [expand, expanding, model.expanded, nodeById],
  );

  // The cytoscape handlers are bound once; they call the latest expand through this ref.
  useEffect(() => {
    expandRef.current = doExpand;
  }, [doExpand]);

  function focusNode(id: string) {
    setSelected(id);
    const cy = cyRef.current;
    const n = cy?.getElementById(id);
    if (cy && n?.nonempty()) cy.animate({ center: { eles: n }, zoom: Math.max(cy.zoom(), 1) }, { duration: 250 });
  }

  function zoomBy(f: number) {
    const cy = cyRef.current;
    if (!cy) return;
    cy.zoom({ level: cy.zoom() * f, renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } });
  }

  async function exportPng() {
    const cy = cyRef.current;
    if (!cy) return;
    const blob = await cy.png({ output: "blob-promise", bg: "#ffffff", full: true, scale: 2, maxWidth: 4000, maxHeight: 4000 });
    downloadBlob(blob, `graft-graph-${fileSlug(name ?? ("query" in result ? result.query.title : null) ?? "query")}.png`);
  }

  const sel = selected ? nodeById.get(selected) : undefined;
  const hov = hover ? nodeById.get(hover.id) : undefined;
  const shown = (id: string) => visible.has(id) && !hiddenByLibrary?.has(id);
  const shownNodes = model.nodes.filter((n) => shown(n.id));
  const shownEdges = model.edges.filter((e) => facets.has(e.facet) && shown(e.source) && shown(e.target));

  return (
    <div className="rounded-lg border border-line bg-surface shadow-xs" data-testid="graph-view">
      <div className="flex flex-wrap items-center justify-between gap-3 border-b border-line px-3 py-2.5">
        <fieldset className="flex flex-wrap items-center gap-1.5">
          <legend className="sr-only">Facets shown</legend>
          {FACETS.map((f) => (
            <label
              key={f}
              style={facetVars(f)}
              className={`relative inline-flex cursor-pointer items-center gap-1.5 rounded-md border py-1 pl-1 pr-2 text-xs font-medium transition-colors has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-focus ${
                facets.has(f) ? "border-(--facet)/40 bg-(--facet-tint) text-(--facet-ink)" : "border-line bg-surface text-ink-faint line-through"
              }`}
            >
              <input
                type="checkbox"
                className={overlayInputClass}
                checked={facets.has(f)}
                onChange={() =>
                  setFacets((cur) => {
                    const next = new Set(cur);
                    if (next.has(f)) next.delete(f);
                    else next.add(f);
                    return next;
                  })
                }
              />
              <FacetLetter facet={f} />
              {FACET_STYLES[f].label}
            </label>
          ))}
          <span className="mx-1 h-5 w-px bg-line" aria-hidden="true" />
          <NodeToggle
            label="Size by citations"
            title="Node size: how often the corpus cites the paper"
            checked={bySize}
            onChange={setBySize}
            testId="graph-size-citations"
          />
          <NodeToggle
            label="Colour by year"
            title="Node colour: publication year, pale (oldest) to dark (newest)"
            checked={byYear}
            onChange={setByYear}
            testId="graph-colour-year"
          />
        </fieldset>
        <div className="flex flex-wrap items-center gap-2">
          <Segmented
            name="graph-layout"
            label="Layout"
            value={layout}
            onChange={setLayout}
            options={[
              { value: "cose", label: "Force", title: "Force-directed: strong relations pull papers together" },
              { value: "concentric", label: "Rings by rank", title: "Concentric: best-ranked papers on the inner ring" },
            ]}
          />
          <div className="flex items-center rounded-md border border-line-strong bg-surface shadow-xs">
            <IconButton label="Zoom in" icon="plus" onClick={() => zoomBy(1.25)} />
            <IconButton label="Zoom out" icon="minus" onClick={() => zoomBy(0.8)} />
            <IconButton label="Fit to view" icon="fit" onClick={() => cyRef.current?.fit(undefined, 30)} />
          </div>
          <button type="button" className={buttonClass} onClick={exportPng} disabled={!ready}>
            <Icon name="image" />
            PNG
          </button>
        </div>
      </div>
      {/* Side by side from xl; below, the details go under the canvas so the canvas keeps its width. */}
      <div className="flex flex-col xl:flex-row" style={{ "--graph-h": `${height}px` } as CSSProperties}>
        <div className="relative min-w-0 flex-1" style={{ height }}>
          {/* Cytoscape makes its container position: relative, so it is sized by height, not insets. */}
          <div
            ref={container}
            className="h-full w-full"
            role="img"
            aria-label={`Facet graph: ${shownNodes.length} papers and ${shownEdges.length} facet links. Use the list of papers beside it to select one.`}
            data-testid="graph-canvas"
          />
          {!ready && !loadError && (
            <div className="absolute inset-0 flex items-center justify-center">
              <Spinner label="Drawing the graph" />
            </div>
          )}
          {loadError && <p className="absolute inset-x-0 top-1/2 text-center text-sm text-danger">The graph view could not load: {loadError}</p>}
          {hov && hover && hover.id !== selected && <HoverCard node={hov} x={hover.x} y={hover.y} facets={nodeFacets(model, hov.id)} />}
          <p className="pointer-events-none absolute bottom-2 left-3 text-xs text-ink-faint" aria-hidden="true">
            {shownNodes.length} papers · {shownEdges.length} links{expand ? " · double-click a paper to expand it" : ""}
            {marks.size > 0 && ` · ${marks.size} in your library${hiddenByLibrary ? " (hidden)" : " (ringed)"}`}
          </p>
          {(byYear || bySize) && (
            <div
              className="pointer-events-none absolute right-3 bottom-2 space-y-1 rounded-md bg-surface/90 px-2 py-1 text-[0.6875rem] text-ink-muted"
              data-testid="graph-node-legend"
            >
              {byYear && years && (
                <p className="flex items-center gap-1.5">
                  <span className="tabular-nums">{years.min}</span>
                  <span
                    className="inline-block h-2 w-20 rounded-sm"
                    style={{
                      background: `linear-gradient(to right, ${[0, 0.25, 0.5, 0.75, 1].map((t) => yearColour(years.min + t * (years.max - years.min), years.min, years.max)).join(", ")})`,
                    }}
                  />
                  <span className="tabular-nums">{years.max}</span>
                </p>
              )}
              {bySize && (
                <p>
                  {counts
                    ? `size: cited ${Math.max(0, ...Object.values(counts))}× at most in the corpus`
                    : citations.error
                      ? `sizes unavailable: ${citations.error.message}`
                      : "counting citations…"}
                </p>
              )}
            </div>
          )}
          {expanding && (
            <div className="absolute right-3 top-3 rounded-md border border-line bg-surface px-2.5 py-1.5 shadow-sm">
              <Spinner label="Expanding…" />
            </div>
          )}
        </div>
        <aside
          className="flex max-h-80 w-full shrink-0 flex-col border-t border-line xl:max-h-(--graph-h) xl:w-80 xl:border-l xl:border-t-0"
          aria-label="Graph details"
        >
          {sel ? (
            <NodePanel
              node={sel}
              model={model}
              canExpand={Boolean(expand) && sel.linkable && !model.expanded.includes(sel.id)}
              expanding={expanding === sel.id}
              error={expandError}
              large={large}
              corpus={result.corpus}
              onExpand={() => void doExpand(sel.id)}
              onClose={() => setSelected(null)}
              onSelect={focusNode}
              mark={marks.get(sel.id) ?? null}
            />
          ) : (
            <NodeList nodes={shownNodes} onSelect={focusNode} marks={marks} />
          )}
        </aside>
      </div>
    </div>
  );
}

function nodeSize(n: GraphNode): number {
  if (n.depth === 0) return 46;
  if (n.depth > 1) return 14;
  return Math.max(16, 34 - n.rank * 0.6);
}

function NodeToggle({
  label,
  title,
  checked,
  onChange,
  testId,
}: {
  label: string;
  title: string;
  checked: boolean;
  onChange: (v: boolean) => void;
  testId: string;
}) {
  return (
    <label
      title={title}
      className={`relative inline-flex cursor-pointer items-center rounded-md border px-2 py-1 text-xs font-medium transition-colors has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-focus ${
        checked ? "border-ink bg-surface text-ink" : "border-line bg-surface text-ink-faint"
      }`}
    >
      <input type="checkbox" className={overlayInputClass} checked={checked} onChange={(e) => onChange(e.target.checked)} data-testid={testId} />
      {label}
    </label>
  );
}

function IconButton({ label, icon, onClick }: { label: string; icon: "plus" | "minus" | "fit"; onClick: () => void }) {
  return (
    <button
      type="button"
      onClick={onClick}
      title={label}
      aria-label={label}
      className="inline-flex size-8 items-center justify-center text-ink-muted hover:bg-canvas hover:text-ink"
    >
      <Icon name={icon} />
    </button>
  );
}

function HoverCard({ node, x, y, facets }: { node: GraphNode; x: number; y: number; facets: ReturnType<typeof nodeFacets> }) {
  return (
    <div
      className="pointer-events-none absolute z-10 w-72 rounded-lg border border-line bg-surface p-3 text-left shadow-lg"
      style={{ left: Math.max(8, x + 14), top: Math.max(8, y + 14) }}
      data-testid="graph-hover-card"
    >
      <p className="text-sm font-semibold leading-snug">{node.title}</p>
      {node.depth > 0 && (
        <p className="mt-1 truncate text-xs text-ink-faint">
          {[node.year, formatAuthors(node.authors, 2), node.venue ? shortVenue(node.venue) : null].filter(Boolean).join(" · ")}
        </p>
      )}
      {node.seed !== undefined && <p className="mt-1 text-xs font-medium text-ink-muted">Seed {node.seed + 1}</p>}
      {node.seeds && <SeedProvenance seeds={node.seeds} />}
      {facets.length > 0 && node.depth > 0 && (
        <div className="mt-2 flex flex-wrap gap-1">
          {facets.map((f) => (
            <FacetRankChip key={`${f.facet}-${f.other}`} facet={f.facet} rank={f.rank} weight={f.weight} />
          ))}
        </div>
      )}
    </div>
  );
}

function NodePanel({
  node,
  model,
  canExpand,
  expanding,
  error,
  corpus,
  large,
  onExpand,
  onClose,
  onSelect,
  mark,
}: {
  node: GraphNode;
  model: GraphModel;
  canExpand: boolean;
  expanding: boolean;
  error: string | null;
  corpus: string;
  large: boolean;
  onExpand: () => void;
  onClose: () => void;
  onSelect: (id: string) => void;
  mark: LibraryMatch | null;
}) {
  const links = nodeFacets(model, node.id);
  const title = (id: string) => model.nodes.find((n) => n.id === id)?.title ?? id;
  return (
    <div className="flex min-h-0 flex-1 flex-col" data-testid="graph-node-panel">
      <div className="flex items-start justify-between gap-2 border-b border-line px-4 py-3">
        <div className="min-w-0">
          <p className="text-[0.6875rem] font-medium uppercase tracking-[0.08em] text-ink-faint">
            {node.seed !== undefined ? `Seed ${node.seed + 1}` : node.depth === 0 ? "Query" : `Selected · rank ${node.rank}`}
          </p>
          <h3 className={`mt-0.5 font-semibold leading-snug ${large ? "text-lg" : "text-sm"}`} data-testid="graph-node-title">
            {node.title}
          </h3>
          {node.depth > 0 && (
            <p className="mt-1 text-xs text-ink-faint">
              {[node.year, formatAuthors(node.authors, 3), node.venue ? shortVenue(node.venue) : null].filter(Boolean).join(" · ")}
            </p>
          )}
          {node.seeds && <SeedProvenance seeds={node.seeds} />}
          {mark && (
            <p className="mt-1.5">
              <LibraryBadge match={mark} />
            </p>
          )}
        </div>
        <button type="button" onClick={onClose} aria-label="Close details" className="rounded p-1 text-ink-faint hover:bg-canvas hover:text-ink">
          <Icon name="close" className="size-4" />
        </button>
      </div>
      <div className="flex flex-wrap gap-2 px-4 py-3">
        {node.linkable && (
          <Link href={paperHref(corpus, node.id)} className={buttonClass}>
            <Icon name="external" />
            Open paper
          </Link>
        )}
        {canExpand && (
          <button type="button" onClick={onExpand} disabled={expanding} className={buttonClass}>
            <Icon name="expand" />
            {expanding ? "Expanding…" : "Expand neighbourhood"}
          </button>
        )}
        {model.expanded.includes(node.id) && node.depth > 0 && <span className="self-center text-xs text-ink-faint">Neighbourhood shown</span>}
      </div>
      {error && (
        <p role="alert" className="mx-4 mb-2 rounded-md bg-danger-tint px-3 py-2 text-xs text-danger">
          Could not expand: {error}
        </p>
      )}
      <div className="min-h-0 flex-1 overflow-y-auto border-t border-line px-4 py-3">
        <p className="text-xs font-medium text-ink-muted">{links.length} typed edges</p>
        <ul className="mt-2 space-y-1.5">
          {links.map((l) => (
            <li key={`${l.facet}-${l.other}`} className="flex items-start gap-2 text-xs">
              <FacetRankChip facet={l.facet} rank={l.rank} weight={l.weight} />
              <button type="button" onClick={() => onSelect(l.other)} className="min-w-0 text-left leading-snug text-ink-muted hover:text-ink hover:underline">
                {title(l.other)}
              </button>
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}

/** The seeds that surfaced a result of several seeds, as the result list shows them ("seed 1 #3"). */
function SeedProvenance({ seeds }: { seeds: NonNullable<GraphNode["seeds"]> }) {
  return (
    <p className="mt-1.5 flex flex-wrap items-center gap-1 text-xs text-ink-faint" data-testid="graph-node-seeds">
      Surfaced by
      {seeds.map((s) => (
        <span key={s.seed} className="inline-flex items-center rounded border border-line-strong bg-canvas px-1.5 text-[0.6875rem] font-medium text-ink">
          seed {s.seed + 1} #{s.rank}
        </span>
      ))}
    </p>
  );
}

function NodeList({ nodes, onSelect, marks }: { nodes: GraphNode[]; onSelect: (id: string) => void; marks: ReadonlyMap<string, LibraryMatch> }) {
  const sorted = [...nodes].sort((a, b) => a.depth - b.depth || a.rank - b.rank);
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div className="border-b border-line px-4 py-3">
        <p className="text-sm font-semibold">Papers in the graph</p>
        <p className="mt-0.5 text-xs text-ink-faint">
          Select one to see its links, open it or expand its neighbourhood. A link&apos;s colour is the facet that relates two papers; the thicker, the
          stronger.
        </p>
      </div>
      <ol className="min-h-0 flex-1 overflow-y-auto py-1" data-testid="graph-node-list">
        {sorted.map((n) => (
          <li key={n.id}>
            <button type="button" onClick={() => onSelect(n.id)} className="flex w-full items-baseline gap-2 px-4 py-1.5 text-left text-xs hover:bg-canvas">
              <span className="w-6 shrink-0 text-right tabular-nums text-ink-faint">
                {n.seed !== undefined ? `S${n.seed + 1}` : n.depth === 0 ? "Q" : n.depth > 1 ? "+" : n.rank}
              </span>
              <span className={`min-w-0 truncate ${n.depth === 0 ? "font-semibold" : ""}`}>{n.title}</span>
              {marks.has(n.id) && <LibraryBadge match={marks.get(n.id)!} />}
            </button>
          </li>
        ))}
      </ol>
    </div>
  );
}

const STYLE: StylesheetJson = [
  {
    selector: "node",
    style: {
      "background-color": "#ffffff",
      "border-color": "#3f3f46",
      "border-width": 1.5,
      // Each paper is a pie of the facets that link it, in the facet colours.
      "pie-size": "100%",
      "pie-1-background-color": FACET_STYLES.problems.color,
      "pie-1-background-size": (n: NodeSingular) => n.data("p1") as number,
      "pie-2-background-color": FACET_STYLES.methods.color,
      "pie-2-background-size": (n: NodeSingular) => n.data("p2") as number,
      "pie-3-background-color": FACET_STYLES.results.color,
      "pie-3-background-size": (n: NodeSingular) => n.data("p3") as number,
      "pie-4-background-color": FACET_STYLES.contributions.color,
      "pie-4-background-size": (n: NodeSingular) => n.data("p4") as number,
      width: "data(size)",
      height: "data(size)",
      label: "",
      "font-size": 10,
      "font-family": "ui-sans-serif, system-ui, sans-serif",
      color: "#27272a",
      "text-valign": "bottom",
      "text-margin-y": 4,
      "text-wrap": "wrap",
      "text-max-width": "140px",
      "text-background-color": "#ffffff",
      "text-background-opacity": 0.85,
      "text-background-padding": "1.5px",
      "min-zoomed-font-size": 7,
    },
  },
  { selector: "node.labelled", style: { label: "data(label)" } },
  { selector: "node.hover", style: { label: "data(label)", "z-index": 30 } },
  {
    selector: "node.center",
    style: {
      "background-color": "#27272a",
      "border-color": "#27272a",
      "pie-size": "0%",
      label: "data(label)",
      "font-size": 12,
      "font-weight": "bold",
      "text-max-width": "180px",
    },
  },
  // A seed of several: a centre drawn as a diamond, so seeds stand apart from the papers they surfaced.
  { selector: "node.seed", style: { shape: "round-diamond" } },
  { selector: "node.outer", style: { "border-color": "#a1a1aa", "pie-size": "70%" } },
  { selector: "node.by-citations", style: { width: "data(csize)", height: "data(csize)" } },
  { selector: "node.by-year", style: { "pie-size": "0%", "background-color": "data(ycolor)" } },
  // A paper of the reader's library: a thick double ring, whatever its fill.
  { selector: "node.in-library", style: { "border-color": "#18181b", "border-width": 4, "border-style": "double" } },
  { selector: "node.selected-node", style: { "border-color": "#2f5fd0", "border-width": 4, label: "data(label)", "z-index": 20 } },
  {
    selector: "edge",
    style: {
      "line-color": "data(color)",
      width: "data(width)",
      opacity: 0.7,
      // Haystack edges are straight and cheap; parallel facet edges of one pair lie side by side.
      "curve-style": "haystack",
      "haystack-radius": 0.55,
    },
  },
  { selector: ".faded", style: { opacity: 0.12 } },
  { selector: ".hidden", style: { display: "none" } },
];
