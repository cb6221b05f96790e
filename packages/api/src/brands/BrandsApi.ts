/**
 * The brands group of `/v1` (CONTRACT §5): submitting, listing, reading and changing brands.
 *
 * @since 0.1.0
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Envelope, ListEnvelope } from "../envelope/Envelope.js"
import * as Fields from "../envelope/Fields.js"
import * as WireErrors from "../envelope/WireErrors.js"
import { needs, v1 } from "../middleware/Pipeline.js"
import * as BrandJson from "./BrandJson.js"
import * as BrandsJson from "./BrandsJson.js"

const BrandId = Fields.PathId("brand", "brand")

/** The brands group. @since 0.1.0 @category groups */
export class BrandsApi extends v1(
  HttpApiGroup.make("brands")
    .annotate(
      OpenApi.Description,
      "Brands an organisation sends for, identified by a legal identifier and approved by its Brand Owner before use."
    )
    .add(
      HttpApiEndpoint.post("create", "/brands")
        .setPayload(BrandsJson.CreateBrand)
        .addSuccess(Envelope(BrandJson.BrandCreated), { status: 201 })
        .addError(WireErrors.RuleViolation)
        .annotate(OpenApi.Summary, "Submit a brand, linked to you by a relationship its Brand Owner approves")
        .annotateContext(needs("brands:write"))
    )
    .add(
      HttpApiEndpoint.get("list", "/brands")
        .setUrlParams(BrandsJson.ListBrandsQuery)
        .addSuccess(ListEnvelope(BrandJson.BrandFull))
        .annotate(OpenApi.Summary, "List the brands you may read, newest first")
        .annotateContext(needs("brands:read"))
    )
    .add(
      HttpApiEndpoint.get("get", "/brands/:id")
        .setPath(BrandId)
        .addSuccess(Envelope(BrandJson.BrandFull))
        .annotate(OpenApi.Summary, "Get a brand (403 brand_relationship_pending until its Brand Owner approves)")
        .annotateContext(needs("brands:read"))
    )
    .add(
      HttpApiEndpoint.patch("update", "/brands/:id")
        .setPath(BrandId)
        .setPayload(BrandsJson.UpdateBrand)
        .addSuccess(Envelope(BrandJson.BrandFull))
        .addError(WireErrors.RuleViolation)
        .annotate(OpenApi.Summary, "Change a brand's name, contact or website")
        .annotateContext(needs("brands:write"))
    )
) {}
