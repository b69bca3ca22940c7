/** The database image variable of the seed's core stack. */
export const DATABASE_VARIABLE = 'HEPHAESTUS_IMAGE_POSTGRES';
/** Inputs of the database image: its build folder and the workflow that builds the images of main (CI's publish job). */
export const DATABASE_PATHS = ['docker/postgres/', '.github/workflows/ci.yml'] as const;

export type DatabaseImageReason =
  | 'kept'
  | 'refresh-requested'
  | 'no-record'
  | 'inputs-changed'
  | 'service-changed'
  | 'new-day';

export interface DatabaseImageInput {
  /** The channel's (freshly built) database image. */
  readonly channelImage: string;
  /** The running release's database image, from its retained lock; undefined when there is no usable record. */
  readonly previousImage: string | undefined;
  readonly refreshRequested: boolean;
  /** `docker/postgres/` or its build workflow changed between the running commit and the target. */
  readonly inputsChanged: boolean;
  /** The database service definition differs between the two commits. */
  readonly serviceChanged: boolean;
  /** UTC days (YYYY-MM-DD) of the running commit and of the target commit. */
  readonly previousDay: string | undefined;
  readonly targetDay: string;
}

/** Commit channels rebuild every image; the database keeps running its image unless one of the seed's reasons holds. Pure. */
export function chooseDatabaseImage(input: DatabaseImageInput): {
  readonly image: string;
  readonly reason: DatabaseImageReason;
} {
  const fresh = (reason: DatabaseImageReason) => ({ image: input.channelImage, reason });
  if (input.refreshRequested) return fresh('refresh-requested');
  if (input.previousImage === undefined || input.previousDay === undefined) return fresh('no-record');
  if (input.inputsChanged) return fresh('inputs-changed');
  if (input.serviceChanged) return fresh('service-changed');
  if (input.targetDay > input.previousDay) return fresh('new-day');
  return { image: input.previousImage, reason: 'kept' };
}
