// `created_for` (beyond the spec, docs/access.md): the caller's name for what it creates a gateway
// key or webhook endpoint for, stored with the record and filterable in the list. The operator
// gives the Kubernetes resource's metadata.uid, so a record whose create answer it lost (killed
// between the create and the Secret that records it) is found again instead of doubled.
import { z } from "zod";

export const createdForSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:-]+$/, "letters, digits and . _ : - only");
