// The subset of Dagger's core GraphQL schema the module, the SDK's entrypoint and the tests use; names and
// arguments as in Dagger 0.21 (the SDK's generated client, dagger/node_modules/@dagger.io/dagger/dist/src/api).
export const SCHEMA = /* GraphQL */ `
  scalar ContainerID
  scalar DirectoryID
  scalar FileID
  scalar SecretID
  scalar Platform
  scalar JSON
  scalar Void
  scalar ModuleID
  scalar TypeDefID
  scalar FunctionID
  scalar SourceMapID
  scalar ErrorID
  scalar FunctionCallArgValueID

  enum ReturnType {
    ANY
    FAILURE
    SUCCESS
  }
  enum TypeDefKind {
    BOOLEAN_KIND
    ENUM_KIND
    FLOAT_KIND
    INPUT_KIND
    INTEGER_KIND
    INTERFACE_KIND
    LIST_KIND
    OBJECT_KIND
    SCALAR_KIND
    STRING_KIND
    VOID_KIND
    BOOLEAN
    ENUM
    FLOAT
    INPUT
    INTEGER
    INTERFACE
    LIST
    OBJECT
    SCALAR
    STRING
    VOID
  }
  enum FunctionCachePolicy {
    Default
    Never
    PerSession
  }

  input BuildArg {
    name: String!
    value: String!
  }

  union Node = Container | Directory | File | Secret | FunctionCallArgValue | Error

  type Query {
    node(id: ID!): Node
    container(platform: Platform): Container!
    directory: Directory!
    host: Host!
    setSecret(name: String!, plaintext: String!): Secret!
    loadContainerFromID(id: ContainerID!): Container!
    loadDirectoryFromID(id: DirectoryID!): Directory!
    loadFileFromID(id: FileID!): File!
    loadSecretFromID(id: SecretID!): Secret!
    version: String!
    currentFunctionCall: FunctionCall!
    currentModule: CurrentModule!
    error(message: String!): Error!
    module: Module!
    typeDef: TypeDef!
    function(name: String!, returnType: TypeDefID!): Function!
    sourceMap(filename: String!, line: Int!, column: Int!, module: String, url: String): SourceMap!
    loadErrorFromID(id: ErrorID!): Error!
    loadFunctionCallArgValueFromID(id: FunctionCallArgValueID!): FunctionCallArgValue!
  }

  type FunctionCall {
    name: String!
    parentName: String!
    parent: JSON!
    inputArgs: [FunctionCallArgValue!]!
    returnValue(value: JSON!): Void
    returnError(error: ErrorID!): Void
  }
  type FunctionCallArgValue {
    id: FunctionCallArgValueID!
    name: String!
    value: JSON!
  }
  type CurrentModule {
    name: String!
  }
  type Error {
    id: ErrorID!
    message: String!
    withValue(name: String!, value: JSON!): Error!
  }
  type SourceMap {
    id: SourceMapID!
  }
  type Module {
    id: ModuleID!
    withDescription(description: String!): Module!
    withObject(object: TypeDefID!): Module!
    withEnum(enum: TypeDefID!): Module!
    withInterface(iface: TypeDefID!): Module!
  }
  type TypeDef {
    id: TypeDefID!
    withObject(name: String!, description: String, sourceMap: SourceMapID, deprecated: String): TypeDef!
    withFunction(function: FunctionID!): TypeDef!
    withField(name: String!, typeDef: TypeDefID!, description: String, sourceMap: SourceMapID, deprecated: String): TypeDef!
    withConstructor(function: FunctionID!): TypeDef!
    withScalar(name: String!, description: String): TypeDef!
    withListOf(elementType: TypeDefID!): TypeDef!
    withKind(kind: TypeDefKind!): TypeDef!
    withOptional(optional: Boolean!): TypeDef!
    withEnum(name: String!, description: String, sourceMap: SourceMapID): TypeDef!
    withInterface(name: String!, description: String, sourceMap: SourceMapID): TypeDef!
  }
  type Function {
    id: FunctionID!
    withDescription(description: String!): Function!
    withSourceMap(sourceMap: SourceMapID!): Function!
    withArg(name: String!, typeDef: TypeDefID!, description: String, defaultValue: JSON, defaultPath: String, ignore: [String!], sourceMap: SourceMapID, deprecated: String, defaultAddress: String): Function!
    withCachePolicy(policy: FunctionCachePolicy!, timeToLive: String): Function!
    withCheck: Function!
    withGenerator: Function!
    withUp: Function!
    withDeprecated(reason: String): Function!
  }

  type Host {
    directory(path: String!, exclude: [String!], include: [String!], noCache: Boolean, gitignore: Boolean): Directory!
    file(path: String!, noCache: Boolean): File!
  }

  type Directory {
    id: DirectoryID!
    entries(path: String): [String!]!
    directory(path: String!): Directory!
    file(path: String!): File!
    withNewFile(path: String!, contents: String!, permissions: Int): Directory!
    withFile(path: String!, source: FileID!, permissions: Int): Directory!
    export(path: String!, wipe: Boolean): String!
    dockerBuild(dockerfile: String, platform: Platform, buildArgs: [BuildArg!], target: String, secrets: [SecretID!], noInit: Boolean): Container!
  }

  type File {
    id: FileID!
    name: String!
    contents: String!
    export(path: String!, allowParentDirPath: Boolean): String!
  }

  type Secret {
    id: SecretID!
    name: String!
    plaintext: String!
  }

  type Container {
    id: ContainerID!
    from(address: String!): Container!
    withLabel(name: String!, value: String!): Container!
    label(name: String!): String
    withEnvVariable(name: String!, value: String!, expand: Boolean): Container!
    envVariable(name: String!): String
    withSecretVariable(name: String!, secret: SecretID!): Container!
    withWorkdir(path: String!, expand: Boolean): Container!
    withDirectory(path: String!, source: DirectoryID!, exclude: [String!], include: [String!]): Container!
    withMountedDirectory(path: String!, source: DirectoryID!): Container!
    withExec(args: [String!]!, stdin: String, redirectStdout: String, expect: ReturnType): Container!
    exitCode: Int!
    withRegistryAuth(address: String!, username: String!, secret: SecretID!): Container!
    stdout: String!
    stderr: String!
    file(path: String!): File!
    directory(path: String!): Directory!
    sync: ContainerID!
    publish(address: String!): String!
  }
`;
