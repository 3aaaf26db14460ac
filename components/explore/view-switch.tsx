"use client";

import { Icon, Segmented } from "../ui";
import type { View } from "./explore-state";

/** Ranked / By facet / Graph / Prior & derivative: the result views of one query and of several seeds. */
export function ViewSwitch({ value, onChange }: { value: View; onChange: (view: View) => void }) {
  return (
    <Segmented<View>
      name="view"
      label="View"
      value={value}
      onChange={onChange}
      options={[
        {
          value: "list",
          label: (
            <>
              <Icon name="list" className="size-3.5" /> Ranked
            </>
          ),
          testId: "view-list",
        },
        {
          value: "facets",
          label: (
            <>
              <Icon name="columns" className="size-3.5" /> By facet
            </>
          ),
          testId: "view-facets",
        },
        {
          value: "graph",
          label: (
            <>
              <Icon name="graph" className="size-3.5" /> Graph
            </>
          ),
          testId: "view-graph",
        },
        {
          value: "lineage",
          label: (
            <>
              <Icon name="bookmark" className="size-3.5" /> Prior &amp; derivative
            </>
          ),
          title: "Corpus papers these results cite most, and papers citing most of them",
          testId: "view-lineage",
        },
      ]}
    />
  );
}
