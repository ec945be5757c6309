/* Python extension exposing the tree-sitter Apache grammar as a capsule
 * that py-tree-sitter's Language() accepts. */
#include <Python.h>

typedef struct TSLanguage TSLanguage;
const TSLanguage *tree_sitter_apache(void);

static PyObject *language(PyObject *self, PyObject *args) {
    (void)self; (void)args;
    return PyCapsule_New((void *)tree_sitter_apache(), "tree_sitter.Language", NULL);
}

static PyMethodDef methods[] = {
    {"language", language, METH_NOARGS, "Return the tree-sitter language capsule for Apache configuration."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_grammar", NULL, -1, methods};

PyMODINIT_FUNC PyInit__grammar(void) { return PyModule_Create(&module); }
