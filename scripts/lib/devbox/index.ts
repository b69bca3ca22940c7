export { DevboxError } from './devbox-error.ts';
export type { DevboxErrorCode } from './devbox-error.ts';
export { loadTargetProfile, parseTargetProfile, targetProfileSchema, TARGET_NAME } from '../target/target-profile.ts';
export type { TargetProfile, TargetProfileFile } from '../target/target-profile.ts';
export { parseDuration } from '../target/duration.ts';
export { readReceipt, writeReceipt, receiptSchema } from '../target/receipt.ts';
export type { Receipt } from '../target/receipt.ts';
export { appendJournal, openJournal, readJournal } from '../steps/jsonl-journal.ts';
export type { Journal, JournalEntry } from '../steps/jsonl-journal.ts';
export { readCheckoutCommit } from '../delivery/resolve-checkout.ts';
export type { CheckoutCommit } from '../delivery/resolve-checkout.ts';
export { targetStatePaths } from '../target/state-paths.ts';
export type { TargetStatePaths } from '../target/state-paths.ts';
export { acquireLocalLock } from '../target/local-lock.ts';
export { planBuilds } from '../delivery/plan-builds.ts';
export type { ImagePlan, Deployed } from '../delivery/plan-builds.ts';
export { explainChange } from '../fingerprint/explain-change.ts';
export {
  loadJobTemplate,
  renderBuildJob,
  buildctlArgs,
  buildJobName,
  imageRepository,
  digestFromTerminationMessage,
  jobTemplateSchema,
  BUILD_CONTAINER,
  LABEL_IMAGE,
  LABEL_FINGERPRINT,
  ANNOTATION_COMMIT,
} from '../delivery/build-job.ts';
export type { JobTemplate, BuildRequest } from '../delivery/build-job.ts';
export { runBuildJob, jobPhase } from '../delivery/run-build-job.ts';
export { rootInputs, rootInputsPatch, kustomizeImages } from '../delivery/root-inputs.ts';
export type { RootInputs } from '../delivery/root-inputs.ts';
export { deliver, planDelivery } from '../delivery/deliver.ts';
export type { DeliverOptions, DeliveryOutcome } from '../delivery/deliver.ts';
export type { DeliveryContext, DeliveryState, Step, StepResult } from '../delivery/delivery-context.ts';
export { DELIVERY_STEPS } from '../delivery/delivery-steps.ts';
