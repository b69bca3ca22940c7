// The subset of Dagger's core GraphQL schema the module and its tests use; names and arguments as in Dagger 0.21.
export const SCHEMA = /* GraphQL */ `
  scalar ContainerID
  scalar DirectoryID
  scalar FileID
  scalar SecretID
  scalar Platform

  input BuildArg {
    name: String!
    value: String!
  }

  type Query {
    container(platform: Platform): Container!
    directory: Directory!
    host: Host!
    setSecret(name: String!, plaintext: String!): Secret!
    loadContainerFromID(id: ContainerID!): Container!
    loadDirectoryFromID(id: DirectoryID!): Directory!
    loadFileFromID(id: FileID!): File!
    loadSecretFromID(id: SecretID!): Secret!
    version: String!
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
    withExec(args: [String!]!): Container!
    withRegistryAuth(address: String!, username: String!, secret: SecretID!): Container!
    stdout: String!
    stderr: String!
    file(path: String!): File!
    directory(path: String!): Directory!
    sync: ContainerID!
    publish(address: String!): String!
  }
`;
