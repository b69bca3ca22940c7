/** BuildKit's automatic platform ARGs for a target platform such as `linux/arm64/v8`; the build platform is taken to be the same. */
export function platformArgs(platform: string): Map<string, string> {
  const [os = '', arch = '', variant = ''] = platform.split('/');
  const args = new Map<string, string>();
  for (const side of ['TARGET', 'BUILD']) {
    args.set(`${side}PLATFORM`, platform);
    args.set(`${side}OS`, os);
    args.set(`${side}ARCH`, arch);
    args.set(`${side}VARIANT`, variant);
  }
  return args;
}
