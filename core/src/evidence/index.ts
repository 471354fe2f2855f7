// Moved to @countersign/protocol/evidence. Kept while branches written against the
// old path are merged, so their imports still build; import the protocol package.
export * from "@countersign/protocol/evidence";
