import { RESOURCES, scopesOf, type ResourceDeclaration, type ResourceType } from "../../domain/resources.ts";

// What a resource's routes are called and where they live, from its declaration
// (domain/resources.ts): its tag, paths, operation names and scopes. Operation names are the
// methods of generated clients, so they follow one rule: list + the collection (listRisks,
// listPersonnel, listFinancialEntries), a verb + the record's noun otherwise (createPerson).

const capitalise = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
/** "financial entry" or "financial-entries" -> FinancialEntry, FinancialEntries. */
const pascal = (words: string) => words.split(/[ -]/).map(capitalise).join("");

export function resourceNames(declaration: ResourceDeclaration) {
  const { nouns, path, parent } = declaration;
  const record = pascal(nouns[0]);
  return {
    /** The OpenAPI tag: the collection in words ("Financial entries"). */
    tag: capitalise(path.replace(/-/g, " ")),
    /** The collection; one record lives at <path>/{id}. */
    path: `/v1/${path}` as const,
    /** Where list and create live when records belong to a parent: under the parent, its id as {id}. */
    collectionPath: parent ? (`/v1/${RESOURCES[parent as ResourceType].path}/{id}/${path}` as const) : undefined,
    nouns,
    operations: {
      list: `list${pascal(path)}`,
      counts: `count${pascal(path)}`,
      create: `create${record}`,
      get: `get${record}`,
      update: `update${record}`,
      upsert: `upsert${record}`,
      delete: `delete${record}`,
      history: `list${record}History`,
    },
    scopes: scopesOf(declaration),
  };
}
