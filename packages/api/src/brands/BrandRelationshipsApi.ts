/**
 * The brand relationships group of `/v1` (CONTRACT §5): what links a brand to the provider that
 * submitted it, listed to both, decided by the brand's Brand Owner.
 *
 * @since 0.1.0
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Envelope, ListEnvelope } from "../envelope/Envelope.js"
import * as Fields from "../envelope/Fields.js"
import { needs, v1 } from "../middleware/Pipeline.js"
import * as BrandJson from "./BrandJson.js"
import * as BrandRelationshipsJson from "./BrandRelationshipsJson.js"

const RelationshipId = Fields.PathId("rel", "brand relationship")

/** The brand relationships group. @since 0.1.0 @category groups */
export class BrandRelationshipsApi extends v1(
  HttpApiGroup.make("brandRelationships")
    .annotate(
      OpenApi.Description,
      "A brand’s relationships with the organisations that submitted it: the Brand Owner approves or rejects each before its Sender IDs can be registered."
    )
    .add(
      HttpApiEndpoint.get("list", "/brand-relationships")
        .setUrlParams(BrandRelationshipsJson.ListRelationshipsQuery)
        .addSuccess(ListEnvelope(BrandJson.RelationshipJson))
        .annotate(OpenApi.Summary, "List your relationships, and those of the brands you own, newest first")
        .annotateContext(needs("brands:read"))
    )
    .add(
      HttpApiEndpoint.get("get", "/brand-relationships/:id")
        .setPath(RelationshipId)
        .addSuccess(Envelope(BrandJson.RelationshipJson))
        .annotate(OpenApi.Summary, "Get a relationship")
        .annotateContext(needs("brands:read"))
    )
    .add(
      HttpApiEndpoint.post("approve", "/brand-relationships/:id/approve")
        .setPath(RelationshipId)
        .addSuccess(Envelope(BrandJson.RelationshipJson))
        .annotate(OpenApi.Summary, "Approve a pending relationship (the brand's Brand Owner only)")
        .annotateContext(needs("brands:write"))
    )
    .add(
      HttpApiEndpoint.post("reject", "/brand-relationships/:id/reject")
        .setPath(RelationshipId)
        .addSuccess(Envelope(BrandJson.RelationshipJson))
        .annotate(OpenApi.Summary, "Reject a pending relationship (the brand's Brand Owner only)")
        .annotateContext(needs("brands:write"))
    )
) {}
