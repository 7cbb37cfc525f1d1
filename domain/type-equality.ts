// Compile-time checks that a form built outside the kernel (a zod schema, the console's JSDoc
// type) is exactly the kernel's type: `type _ = Assert<Equal<z.infer<typeof Schema>, OpsEvent>>`
// fails tsc on any drift, a field added, dropped, retyped or made optional on either side.

/** True only when A and B are the same type (not merely assignable to each other). */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Compiles only when its argument is true. */
export type Assert<T extends true> = T;
