/** A successful CI run of main, as the promotion rules need it. */
export interface CiBuild {
  readonly commit: string;
  /** RFC 3339 completion time; "most recent" is by this. */
  readonly completedAt: string;
}

/** The GitHub lookups of automatic promotion, behind a port (real: GitHub REST; tests: a double; air-gapped: a JSON file). */
export interface CiHistory {
  /** Successful CI runs of main, any order. */
  successfulMainBuilds(): Promise<readonly CiBuild[]>;
  /** The image pins CI built for a commit (HEPHAESTUS_IMAGE_* -> repo@sha256:...). */
  imagesFor(commit: string): Promise<Readonly<Record<string, string>>>;
}
