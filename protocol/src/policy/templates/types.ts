import type { PolicyDocument } from "../document/schema.js";

/** A starting document for a common need (GET policy-templates, POST policies/from-template). */
export interface PolicyTemplate {
  id: string;
  name: string;
  description: string;
  document: PolicyDocument;
}
