/**
 * `true` only when a Swagger class declares exactly the fields of the view type it documents; with
 * `implements` (which checks each field's type) a field added to one and not the other fails the
 * type-check, so the document and the answers cannot drift apart.
 */
export type SameFields<Documented, View> = [Exclude<keyof Documented, keyof View> | Exclude<keyof View, keyof Documented>] extends [never]
  ? true
  : { missingOrExtra: Exclude<keyof Documented, keyof View> | Exclude<keyof View, keyof Documented> };
