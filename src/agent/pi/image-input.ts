/**
 * A message with images goes only to a model that takes them. pi sends a text-only model a placeholder instead of
 * each image, so the user would believe the model saw a picture it never got; the refusal comes before pi records
 * anything, so the session holds no message the model could not read.
 */
import type { Model } from "@mariozechner/pi-ai";
import { CodedError } from "../../shared/errors.js";

/** Throws `conflict` naming the model when `images` are attached and `model` reads text only. */
export function refuseImagesFor(model: Pick<Model<never>, "provider" | "id" | "input"> | undefined, images: readonly unknown[] | undefined): void {
	if (!images?.length || !model || model.input.includes("image")) return;
	const count = images.length === 1 ? "the image" : `the ${images.length} images`;
	throw new CodedError("conflict", `The model ${model.provider}/${model.id} does not take images: remove ${count}, or choose a model that takes images`);
}
