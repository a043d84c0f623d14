/* The common shape of a Python-call-syntax answer, read in one pass of compiled code.
 *
 * validator.scoring.parse reads Python-call syntax with CPython's parser and converts the tree
 * node by node (``parse_python``): that reference reader handles every input. Most answers are
 * far simpler than what it accepts — ``[api(name='text', n=3, flag=True, xs=[1, 2])]`` — and
 * building a syntax tree for them costs more than scoring them. ``read`` reads exactly that
 * common shape and returns the same calls the reference reader returns; for anything else
 * (comments, escapes, tuples, string prefixes, non-ASCII names, a duplicate argument, a value
 * over a size cap, any syntax error …) it returns None and the caller falls back to the
 * reference reader, which gives the verdict or the error message. So this module can only
 * ever be faster, never different: tests/scoring/test_fastcalls.py holds it to the reference
 * on generated and corpus answers.
 *
 * Subset read (ASCII outside string literals):
 *   answer := '[' ws [call (ws ',' ws call)* [ws ','] ws] ']' trailing | call trailing
 *   call   := name ws '(' ws [name ws '=' ws value (ws ',' ws name ws '=' ws value)* [ws ','] ws] ')'
 *   value  := '...' | "..." (no backslash, no control character but tab, not triple-quoted)
 *           | [+-] ws digits ['.' digits] [('e'|'E') [+-] digits] (no leading zero, finite)
 *           | True | False | None | '[' values ']' | '{' string ws ':' ws value , ... '}'
 *   ws     := spaces, tabs and newlines (spaces and tabs only outside brackets)
 * Linear time: every character is looked at a bounded number of times, nesting is capped.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <string.h>

typedef struct {
    const char *text;
    Py_ssize_t size;
    Py_ssize_t pos;
    Py_ssize_t max_depth;
    Py_ssize_t max_string;
    Py_ssize_t max_name;
} Reader;

/* Python's keywords: a call or an argument named like one is a syntax error (the reference
 * reader says so). */
static const char *const KEYWORDS[] = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
    "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
    "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return",
    "try", "while", "with", "yield", "__debug__", NULL,
};

static int is_name_start(unsigned char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_name_char(unsigned char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }
static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* A str of ASCII bytes, made directly (the bytes are known to be ASCII: no decoding needed). */
static PyObject *ascii_str(const char *bytes, Py_ssize_t length) {
    PyObject *text = PyUnicode_New(length, 127);
    if (text != NULL)
        memcpy(PyUnicode_1BYTE_DATA(text), bytes, length);
    return text;
}

static void skip_ws(Reader *r, int newlines) {
    while (r->pos < r->size) {
        char c = r->text[r->pos];
        if (c == ' ' || c == '\t' || (newlines && c == '\n'))
            r->pos++;
        else
            break;
    }
}

static int peek(Reader *r) { return r->pos < r->size ? (unsigned char)r->text[r->pos] : -1; }

/* An ASCII identifier that is no keyword, at most max_name long: its length, or 0. */
static Py_ssize_t read_name(Reader *r) {
    Py_ssize_t start = r->pos;
    if (start >= r->size || !is_name_start((unsigned char)r->text[start]))
        return 0;
    Py_ssize_t end = start + 1;
    while (end < r->size && is_name_char((unsigned char)r->text[end]))
        end++;
    if (end < r->size && (unsigned char)r->text[end] >= 0x80)
        return 0; /* a non-ASCII identifier: Python folds those to NFKC; the reference reader keeps them as written */
    Py_ssize_t length = end - start;
    if (length > r->max_name)
        return 0;
    if (length >= 2 && length <= 9) { /* the lengths of Python's keywords */
        for (const char *const *keyword = KEYWORDS; *keyword; keyword++) {
            if ((*keyword)[0] == r->text[start] && (Py_ssize_t)strlen(*keyword) == length &&
                memcmp(*keyword, r->text + start, length) == 0)
                return 0;
        }
    }
    r->pos = end;
    return length;
}

/* After a value: only a separator, a closing bracket or whitespace may follow. */
static int ends_value(Reader *r) {
    int c = peek(r);
    return c == -1 || c == ',' || c == ')' || c == ']' || c == '}' || c == ':' || c == ' ' || c == '\t' || c == '\n';
}

/* After an item of a bracketed sequence: a comma (and white space), or the closing bracket next.
 * 0 when neither follows. */
static int after_item(Reader *r, char closing) {
    skip_ws(r, 1);
    if (peek(r) == ',') {
        r->pos++;
        skip_ws(r, 1);
        return 1;
    }
    return peek(r) == (unsigned char)closing;
}

static PyObject *read_value(Reader *r, Py_ssize_t depth);

static PyObject *read_string(Reader *r) {
    char quote = r->text[r->pos];
    Py_ssize_t start = r->pos + 1;
    Py_ssize_t end = start;
    unsigned char high = 0; /* any byte of a non-ASCII character sets the top bit */
    if (end + 1 < r->size && r->text[end] == quote && r->text[end + 1] == quote)
        return NULL; /* triple-quoted */
    while (end < r->size) {
        unsigned char c = (unsigned char)r->text[end];
        if (c == (unsigned char)quote)
            break;
        if (c == '\\' || (c < 0x20 && c != '\t'))
            return NULL;
        high |= c;
        end++;
    }
    if (end >= r->size)
        return NULL;
    r->pos = end + 1;
    if (!ends_value(r))
        return NULL; /* 'a' 'b', u'x'…: the reference reader decides */
    PyObject *value = (high & 0x80) ? PyUnicode_DecodeUTF8(r->text + start, end - start, "strict") : ascii_str(r->text + start, end - start);
    if (value == NULL) {
        PyErr_Clear();
        return NULL;
    }
    if (PyUnicode_GET_LENGTH(value) > r->max_string) {
        Py_DECREF(value);
        return NULL;
    }
    return value;
}

static PyObject *read_number(Reader *r) {
    int negative = 0;
    int c = peek(r);
    if (c == '-' || c == '+') {
        negative = c == '-';
        r->pos++;
        skip_ws(r, 1);
    }
    Py_ssize_t start = r->pos;
    Py_ssize_t end = start;
    while (end < r->size && is_digit((unsigned char)r->text[end]))
        end++;
    Py_ssize_t int_digits = end - start;
    if (int_digits == 0 || (int_digits > 1 && r->text[start] == '0'))
        return NULL;
    int is_float = 0;
    if (end < r->size && r->text[end] == '.') {
        Py_ssize_t fraction = end + 1;
        while (fraction < r->size && is_digit((unsigned char)r->text[fraction]))
            fraction++;
        if (fraction == end + 1)
            return NULL; /* "1." */
        end = fraction;
        is_float = 1;
    }
    if (end < r->size && (r->text[end] == 'e' || r->text[end] == 'E')) {
        Py_ssize_t exponent = end + 1;
        if (exponent < r->size && (r->text[exponent] == '+' || r->text[exponent] == '-'))
            exponent++;
        Py_ssize_t digits = exponent;
        while (digits < r->size && is_digit((unsigned char)r->text[digits]))
            digits++;
        if (digits == exponent)
            return NULL;
        end = digits;
        is_float = 1;
    }
    if (end < r->size) {
        unsigned char next = (unsigned char)r->text[end];
        if (is_name_char(next) || next == '.' || next >= 0x80)
            return NULL; /* 1j, 1_000, 1.2.3, 0x… */
    }
    char buffer[64];
    Py_ssize_t length = end - start;
    if (length >= (Py_ssize_t)sizeof(buffer) || (!is_float && length > 18))
        return NULL;
    memcpy(buffer, r->text + start, length);
    buffer[length] = '\0';
    r->pos = end;
    if (!is_float) {
        long long value = strtoll(buffer, NULL, 10);
        return PyLong_FromLongLong(negative ? -value : value);
    }
    double value = PyOS_string_to_double(buffer, NULL, NULL);
    if (value == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return NULL;
    }
    if (!isfinite(value))
        return NULL;
    return PyFloat_FromDouble(negative ? -value : value);
}

static PyObject *read_list(Reader *r, Py_ssize_t depth) {
    PyObject *list = PyList_New(0);
    if (list == NULL)
        return NULL;
    r->pos++; /* '[' */
    skip_ws(r, 1);
    while (peek(r) != ']') {
        PyObject *item = read_value(r, depth + 1);
        if (item == NULL || PyList_Append(list, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(item);
        if (!after_item(r, ']')) {
            Py_DECREF(list);
            return NULL;
        }
    }
    r->pos++; /* ']' */
    return list;
}

static PyObject *read_dict(Reader *r, Py_ssize_t depth) {
    PyObject *dict = PyDict_New();
    if (dict == NULL)
        return NULL;
    r->pos++; /* '{' */
    skip_ws(r, 1);
    while (peek(r) != '}') {
        int c = peek(r);
        PyObject *key = (c == '\'' || c == '"') ? read_string(r) : NULL;
        if (key == NULL)
            goto fail;
        skip_ws(r, 1);
        if (peek(r) != ':' || PyDict_Contains(dict, key) != 0) { /* a set, or a duplicate key */
            Py_DECREF(key);
            goto fail;
        }
        r->pos++;
        skip_ws(r, 1);
        PyObject *value = read_value(r, depth + 1);
        if (value == NULL || PyDict_SetItem(dict, key, value) < 0) {
            Py_DECREF(key);
            Py_XDECREF(value);
            goto fail;
        }
        Py_DECREF(key);
        Py_DECREF(value);
        if (!after_item(r, '}'))
            goto fail;
    }
    r->pos++; /* '}' */
    return dict;
fail:
    Py_DECREF(dict);
    return NULL;
}

static PyObject *read_value(Reader *r, Py_ssize_t depth) {
    if (depth > r->max_depth)
        return NULL;
    int c = peek(r);
    if (c == '\'' || c == '"')
        return read_string(r);
    if (c == '-' || c == '+' || (c >= '0' && c <= '9'))
        return read_number(r);
    if (c == '[')
        return read_list(r, depth);
    if (c == '{')
        return read_dict(r, depth);
    Py_ssize_t start = r->pos;
    Py_ssize_t end = start;
    while (end < r->size && is_name_char((unsigned char)r->text[end]))
        end++;
    Py_ssize_t length = end - start;
    PyObject *constant = NULL;
    if (length == 4 && memcmp(r->text + start, "True", 4) == 0)
        constant = Py_True;
    else if (length == 5 && memcmp(r->text + start, "False", 5) == 0)
        constant = Py_False;
    else if (length == 4 && memcmp(r->text + start, "None", 4) == 0)
        constant = Py_None;
    if (constant == NULL)
        return NULL;
    r->pos = end;
    if (!ends_value(r))
        return NULL;
    Py_INCREF(constant);
    return constant;
}

/* name(arg=value, …) as an instance of call_type (a two-field tuple subclass: api, args). */
static PyObject *read_call(Reader *r, PyTypeObject *call_type, int inside_brackets) {
    Py_ssize_t start = r->pos;
    Py_ssize_t length = read_name(r);
    if (length == 0)
        return NULL;
    skip_ws(r, inside_brackets);
    if (peek(r) != '(')
        return NULL;
    r->pos++;
    skip_ws(r, 1);
    PyObject *args = PyDict_New();
    if (args == NULL)
        return NULL;
    while (peek(r) != ')') {
        Py_ssize_t name_start = r->pos;
        Py_ssize_t name_length = read_name(r);
        if (name_length == 0)
            goto fail;
        skip_ws(r, 1);
        if (peek(r) != '=')
            goto fail;
        r->pos++;
        if (peek(r) == '=')
            goto fail; /* a == b */
        skip_ws(r, 1);
        PyObject *name = ascii_str(r->text + name_start, name_length);
        if (name == NULL) {
            PyErr_Clear();
            goto fail;
        }
        if (PyDict_Contains(args, name) != 0) { /* given twice: the reference reader says so */
            Py_DECREF(name);
            goto fail;
        }
        PyObject *value = read_value(r, 1);
        if (value == NULL || PyDict_SetItem(args, name, value) < 0) {
            Py_DECREF(name);
            Py_XDECREF(value);
            goto fail;
        }
        Py_DECREF(name);
        Py_DECREF(value);
        if (!after_item(r, ')'))
            goto fail;
    }
    r->pos++; /* ')' */
    PyObject *api = ascii_str(r->text + start, length);
    if (api == NULL)
        goto fail;
    PyObject *call = call_type->tp_alloc(call_type, 2);
    if (call == NULL) {
        Py_DECREF(api);
        goto fail;
    }
    PyTuple_SET_ITEM(call, 0, api);
    PyTuple_SET_ITEM(call, 1, args);
    return call;
fail:
    PyErr_Clear();
    Py_DECREF(args);
    return NULL;
}

static int at_end(Reader *r) {
    while (r->pos < r->size) {
        char c = r->text[r->pos];
        if (c != ' ' && c != '\t' && c != '\n')
            return 0;
        r->pos++;
    }
    return 1;
}

static PyObject *read_answer(Reader *r, PyTypeObject *call_type, Py_ssize_t max_calls) {
    PyObject *calls = PyList_New(0);
    if (calls == NULL)
        return NULL;
    if (peek(r) == '[') {
        r->pos++;
        skip_ws(r, 1);
        while (peek(r) != ']') {
            PyObject *call = read_call(r, call_type, 1);
            if (call == NULL || PyList_Append(calls, call) < 0) {
                Py_XDECREF(call);
                goto fail;
            }
            Py_DECREF(call);
            if (PyList_GET_SIZE(calls) > max_calls)
                goto fail;
            if (!after_item(r, ']'))
                goto fail;
        }
        r->pos++;
    } else {
        PyObject *call = read_call(r, call_type, 0);
        if (call == NULL || PyList_Append(calls, call) < 0) {
            Py_XDECREF(call);
            goto fail;
        }
        Py_DECREF(call);
    }
    if (!at_end(r))
        goto fail;
    PyObject *result = PyList_AsTuple(calls);
    Py_DECREF(calls);
    return result;
fail:
    PyErr_Clear();
    Py_DECREF(calls);
    return NULL;
}

/* read(text, call_type, max_calls, max_depth, max_string, max_name) -> tuple of calls | None */
static PyObject *fastcalls_read(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 6 || !PyUnicode_Check(args[0]) || !PyType_Check(args[1]) ||
        !PyType_IsSubtype((PyTypeObject *)args[1], &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "read(text: str, call_type: tuple subclass, max_calls, max_depth, max_string, max_name)");
        return NULL;
    }
    Py_ssize_t limits[4];
    for (int i = 0; i < 4; i++) {
        limits[i] = PyLong_AsSsize_t(args[2 + i]);
        if (limits[i] == -1 && PyErr_Occurred())
            return NULL;
    }
    Py_ssize_t size;
    const char *text = PyUnicode_AsUTF8AndSize(args[0], &size);
    if (text == NULL) { /* lone surrogates: the reference reader reports them */
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    Reader reader = {text, size, 0, limits[1], limits[2], limits[3]};
    PyObject *calls = read_answer(&reader, (PyTypeObject *)args[1], limits[0]);
    if (calls == NULL)
        Py_RETURN_NONE; /* not the common shape (or out of memory): the reference reader decides */
    return calls;
}

static PyMethodDef methods[] = {
    {"read", (PyCFunction)(void (*)(void))fastcalls_read, METH_FASTCALL,
     "read(text, call_type, max_calls, max_depth, max_string, max_name): the calls of a "
     "Python-call-syntax answer of the common shape, or None for anything else."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fastcalls", NULL, 0, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__fastcalls(void) { return PyModule_Create(&module); }
